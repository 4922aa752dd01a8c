// The Markdown pages under docs/, served at /docs/<path without .md> from the same files GitHub
// shows: rendered once per process with markdown-it, links between pages pointed at their served
// paths, headings given GitHub's anchor ids (so one `page.md#anchor` works on both), a contents
// page (docs/README.md and every page's title by section), a search of the titles, the H2/H3
// headings and what each section says, and the example files under docs/**/examples/ as plain
// text.
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import MarkdownIt from 'markdown-it';
import { escapeHtml, htmlPage } from '../../web/html';

const DOCS_DIR = path.resolve(__dirname, '../../docs');

// html: true only so that HTML comments are parsed as such and dropped, as GitHub drops them (the
// guides carry their test harness's steps in comments); every other piece of raw HTML is
// rendered as escaped text, so a page cannot bring in a script, a style or a form.
const markdown = new MarkdownIt({ html: true });
const isComment = (html: string) => /^\s*<!--[\s\S]*-->\s*$/.test(html);
markdown.renderer.rules.html_block = (tokens, i) => (isComment(tokens[i]!.content) ? '' : `<p>${escapeHtml(tokens[i]!.content)}</p>\n`);
markdown.renderer.rules.html_inline = (tokens, i) => (isComment(tokens[i]!.content) ? '' : escapeHtml(tokens[i]!.content));
// A link to a repository file that is neither a page nor an example (code, the SDK's README) keeps
// its text and names the file by its path from the repository's root: the service serves the docs
// and their examples only.
const renderTag = markdown.renderer.renderToken.bind(markdown.renderer);
markdown.renderer.rules.link_open = (tokens, i, options) => (tokens[i]!.meta?.repositoryFile ? '' : renderTag(tokens, i, options));
markdown.renderer.rules.link_close = (tokens, i, options) => {
  const file = tokens[i]!.meta?.repositoryFile as string | undefined;
  return file ? ` (<code>${escapeHtml(file)}</code>)` : renderTag(tokens, i, options);
};

/** GitHub's anchor for a heading's text: lower case, punctuation dropped, spaces as hyphens. */
export function headingSlug(heading: string): string {
  return heading.trim().toLowerCase().replace(/[^\p{L}\p{M}\p{N}\s_-]/gu, '').replace(/\s/g, '-');
}

/** The errors page is made from the code at /docs/errors; its Markdown twin is for GitHub's readers. */
const MADE_FROM_CODE: Record<string, string> = { 'reference/errors.md': '/docs/errors' };

/** A page's own path: its path under docs/ without .md, README.md at its folder's path. */
const ownPath = (file: string) => `/docs/${file.replace(/\.md$/, '').replace(/(^|\/)README$/, '')}`.replace(/\/$/, '');

/** Where a page (its path under docs/) is served: its own path, or the page made from code in its stead. */
export function servedPath(file: string): string {
  return MADE_FROM_CODE[file] ?? ownPath(file);
}

/** An example file a guide links to (under a folder named examples), served as it is at /docs/<file>. */
export const isExample = (file: string) => /(^|\/)examples\/[^/]+$/.test(file) && !file.endsWith('.md');

export interface Section {
  /** An H2 or H3's text and anchor id. */
  heading: string;
  id: string;
  /** The prose under it, up to the next H2 or H3. */
  text: string;
}

export interface RenderedPage {
  /** The text of the first H1. */
  title: string | undefined;
  html: string;
  /** The pages linked to, in order (paths under docs/). */
  links: string[];
  sections: Section[];
}

/**
 * A page at `file` (its path under docs/) as HTML; `isPage` says which paths under docs/ are
 * pages, whose links go to their served paths.
 */
export function renderMarkdown(source: string, file: string, isPage: (file: string) => boolean): RenderedPage {
  const tokens = markdown.parse(source, {});
  const seen = new Map<string, number>();
  const links: string[] = [];
  const sections: Section[] = [];
  let title: string | undefined;
  const textOf = (inline: MarkdownIt.Token) => (inline.children ?? []).filter((t) => t.type === 'text' || t.type === 'code_inline').map((t) => t.content).join('');
  tokens.forEach((token, i) => {
    if (token.type === 'heading_open') {
      const text = textOf(tokens[i + 1]!);
      const base = headingSlug(text);
      const n = seen.get(base) ?? 0;
      seen.set(base, n + 1);
      const id = n === 0 ? base : `${base}-${n}`;
      token.attrSet('id', id);
      if (token.tag === 'h1') title ??= text.trim();
      if (token.tag === 'h2' || token.tag === 'h3') sections.push({ heading: text.trim(), id, text: '' });
    } else if (token.type === 'inline' && tokens[i - 1]?.type !== 'heading_open' && sections.length > 0) {
      sections[sections.length - 1]!.text += ` ${textOf(token)}`;
    }
    const children = token.children ?? [];
    children.forEach((link, j) => {
      if (link.type !== 'link_open') return;
      const href = String(link.attrGet('href') ?? '');
      if (/^([a-z][a-z0-9+.-]*:|\/\/|#)/i.test(href)) return;
      const [target = '', anchor] = href.split('#');
      const resolved = path.posix.normalize(path.posix.join('docs', path.posix.dirname(file), decodeURIComponent(target)));
      const page = resolved.slice('docs/'.length);
      if (resolved.startsWith('docs/') && isPage(page)) {
        links.push(page);
        link.attrSet('href', `${servedPath(page)}${anchor === undefined ? '' : `#${anchor}`}`);
      } else if (resolved.startsWith('docs/') && isExample(page)) {
        link.attrSet('href', `/docs/${page}`);
      } else {
        // Links do not nest: the next link_close is this link's.
        const close = children.slice(j).find((t) => t.type === 'link_close')!;
        link.meta = close.meta = { repositoryFile: resolved };
      }
    });
  });
  return { title, html: markdown.renderer.render(tokens, markdown.options, {}), links, sections };
}

interface Entry {
  title: string;
  href: string;
  section: string;
}

interface Page extends Entry {
  html: string;
  sections: Section[];
}

/** The sections in contents order; any other folder follows them, and pages at the top last. */
const SECTIONS = ['guides', 'reference', 'operators', 'contributors'];
const sectionName = (section: string) => (section === '' ? 'More' : section[0]!.toUpperCase() + section.slice(1));

const SEARCH_FORM = (query: string) =>
  `<form action="/docs" method="get" role="search"><label>Search the docs <input type="search" name="q" value="${escapeHtml(query)}"></label> <button>Search</button></form>`;

/** A page of the docs: the top bar (back to the contents, and the search), then its body. */
export function docsPage(title: string, body: string, query = ''): string {
  return htmlPage(`${title} · Kasi docs`, `<nav><a href="/docs">Kasi docs</a>${SEARCH_FORM(query)}</nav>\n<main>\n${body}</main>`);
}

function list(entries: Entry[]): string {
  return `<ul>\n${entries.map((e) => `<li><a href="${escapeHtml(e.href)}">${escapeHtml(e.title)}</a></li>`).join('\n')}\n</ul>`;
}

/** At most this many sections that only mention the words are listed. */
const MENTIONS_SHOWN = 20;

export interface DocsSite {
  /** The page served at `servedPath`, or undefined. */
  page(servedPath: string): string | undefined;
  /** Where the page whose own path is `servedPath` is served instead (/docs/reference/errors: /docs/errors), or undefined. */
  movedTo(servedPath: string): string | undefined;
  /** The example file served at `servedPath` (its text), or undefined. */
  example(servedPath: string): string | undefined;
  /**
   * /docs: the contents page, or with a query the pages whose title has every word of it, the
   * sections whose heading has them, then the sections that mention them.
   */
  contents(query: string): string;
  notFound(servedPath: string): string;
}

function loadSite(dir: string): DocsSite {
  const all = readdirSync(dir, { recursive: true, encoding: 'utf8' });
  const files = all.filter((f) => f.endsWith('.md'));
  const examples = new Map<string, string>(all.filter(isExample).map((f) => [`/docs/${f}`, readFileSync(path.join(dir, f), 'utf8')]));
  const isPage = (file: string) => files.includes(file);
  const rendered = new Map(files.map((file) => [file, renderMarkdown(readFileSync(path.join(dir, file), 'utf8'), file, isPage)] as const));
  const readme = rendered.get('README.md')!;
  // Within a section, pages come in the order docs/README.md lists them, then by name.
  const order = (file: string) => {
    const i = readme.links.indexOf(file);
    return i === -1 ? Infinity : i;
  };
  const pages = files
    .filter((file) => file !== 'README.md' && MADE_FROM_CODE[file] === undefined)
    .sort((a, b) => order(a) - order(b) || a.localeCompare(b))
    .map((file): Page => {
      const page = rendered.get(file)!;
      return { title: page.title ?? file, href: servedPath(file), section: file.includes('/') ? file.split('/')[0]! : '', html: page.html, sections: page.sections };
    });
  const byPath = new Map(pages.map((p) => [p.href, docsPage(p.title, p.html)]));
  // The pages made from the code rather than from Markdown.
  const entries: Entry[] = [
    { title: 'API reference: every endpoint and object', href: '/docs/api', section: 'reference' },
    { title: 'API errors: every code and reason', href: '/docs/errors', section: 'reference' },
    ...pages,
  ];
  const rank = (section: string) => (section === '' ? SECTIONS.length + 1 : SECTIONS.includes(section) ? SECTIONS.indexOf(section) : SECTIONS.length);
  const sections = [...new Set(entries.map((e) => e.section))].sort((a, b) => rank(a) - rank(b) || a.localeCompare(b));
  const contents = docsPage(
    readme.title ?? 'Contents',
    `${readme.html}<h2>All pages</h2>\n${sections
      .map((s) => `<section><h3>${sectionName(s)}</h3>\n${list(entries.filter((e) => e.section === s))}</section>`)
      .join('\n')}\n`,
  );
  return {
    page: (served) => byPath.get(served),
    movedTo: (served) => Object.entries(MADE_FROM_CODE).find(([file]) => isPage(file) && ownPath(file) === served)?.[1],
    example: (served) => examples.get(served),
    contents(query) {
      const words = query.toLowerCase().split(/\s+/).filter(Boolean);
      if (words.length === 0) return contents;
      const has = (text: string) => words.every((w) => text.toLowerCase().includes(w));
      const inSection = (p: Page, s: Section): Entry => ({ title: `${p.title} › ${s.heading}`, href: `${p.href}#${s.id}`, section: p.section });
      const titles = entries.filter((e) => has(e.title));
      const headings = pages.flatMap((p) => p.sections.filter((s) => has(s.heading)).map((s) => inSection(p, s)));
      const mentions = pages.flatMap((p) => p.sections.filter((s) => !has(s.heading) && has(s.text)).map((s) => inSection(p, s)));
      const q = `“${escapeHtml(query)}”`;
      const parts = [
        titles.length ? `<section id="titles"><h2>Pages with ${q} in the title</h2>\n${list(titles)}</section>` : '',
        headings.length ? `<section id="headings"><h2>Sections with ${q} in the heading</h2>\n${list(headings)}</section>` : '',
        mentions.length
          ? `<section id="mentions"><h2>Sections that mention ${q}</h2>\n${list(mentions.slice(0, MENTIONS_SHOWN))}${mentions.length > MENTIONS_SHOWN ? `\n<p>And ${mentions.length - MENTIONS_SHOWN} more: add a word to narrow the search.</p>` : ''}</section>`
          : '',
      ].filter(Boolean);
      const answer = parts.length ? parts.join('\n') : `<p>Nothing in the docs has ${q}. The <a href="/docs">contents</a> list every page.</p>`;
      return docsPage(`Search: ${query}`, `<h1>Search the docs</h1>\n${answer}\n`, query);
    },
    notFound: (served) =>
      docsPage('Page not found', `<h1>Page not found</h1>\n<p>No page of the docs is at <code>${escapeHtml(served)}</code>. The <a href="/docs">contents</a> list every page.</p>\n`),
  };
}

let site: DocsSite | undefined;

/** The docs, read from disk and rendered on first use. */
export function docsSite(): DocsSite {
  return (site ??= loadSite(DOCS_DIR));
}
