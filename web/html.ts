// Server-rendered HTML: every interpolated value goes through `escapeHtml`.
import { createHash } from 'node:crypto';
export function escapeHtml(value: unknown): string {
  return String(value)
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/"/g, '&quot;')
    .replace(/'/g, '&#39;');
}

/** Inline `code` spans of the reason texts, escaped. */
export function inlineCode(text: string): string {
  return escapeHtml(text).replace(/`([^`]+)`/g, '<code>$1</code>');
}

/**
 * A page's styles, served as a file of its own (`/assets/css/<hash>.css`) so that the pages'
 * Content-Security-Policy can forbid every inline style and script. Made once, at module load, by
 * each family of pages; the hash in the name lets browsers keep it for a year.
 */
export interface Stylesheet {
  href: string;
}

export const STYLESHEETS_PATH = '/assets/css';
const stylesheets = new Map<string, string>();

export function stylesheet(css: string): Stylesheet {
  const name = `${createHash('sha256').update(css).digest('hex').slice(0, 16)}.css`;
  stylesheets.set(name, css);
  return { href: `${STYLESHEETS_PATH}/${name}` };
}

/** The stylesheet of that file name, if a page family made it. */
export function stylesheetNamed(name: string): string | undefined {
  return stylesheets.get(name);
}

/**
 * A whole page: every server-rendered page (the docs, the hosted checkout, the sandbox processor)
 * has this shell, with its own stylesheet and body. No referrer leaves any of them for another
 * site: a checkout's URL is its only credential.
 */
export function htmlDocument(lang: string, title: string, style: Stylesheet, body: string): string {
  return `<!doctype html>
<html lang="${escapeHtml(lang)}">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="referrer" content="same-origin">
<title>${escapeHtml(title)}</title>
<link rel="stylesheet" href="${style.href}">
</head>
<body>
${body}
</body>
</html>
`;
}

const DOCS_STYLE = stylesheet(`body{font:16px/1.5 system-ui,sans-serif;max-width:60rem;margin:0 auto;padding:1rem;color:#1a1a1a}
code{background:#f1f1f1;padding:0 .2em;border-radius:3px}
pre{background:#f6f8fa;border:1px solid #ddd;border-radius:4px;padding:.75rem;overflow-x:auto;line-height:1.4}
pre code{background:none;padding:0}
blockquote{margin:0;padding:0 1rem;border-left:4px solid #ddd;color:#444}
nav{display:flex;flex-wrap:wrap;gap:.5rem 1.5rem;align-items:center;border-bottom:1px solid #ddd;padding-bottom:.5rem}
input,button{font:inherit}
table{border-collapse:collapse;width:100%}th,td{border-bottom:1px solid #ccc;padding:.4rem;text-align:left;vertical-align:top}
section{border-top:1px solid #ddd;margin-top:1.5rem}
:target{background:#fff7d6}
a{color:#0b57d0}`);

export function htmlPage(title: string, body: string): string {
  return htmlDocument('en', title, DOCS_STYLE, body);
}
