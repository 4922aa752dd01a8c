// {docs_url}: one page explaining every error code and reason, with its cause and what to do; each
// has an anchor, which is what an error body's docUrl points at. docs/reference/errors.md is the
// same content in Markdown (errorsMarkdown, written by `npm run docs:errors`) for GitHub's readers;
// the served docs list and link this page instead. Reasons nothing raises in this version say so.
import { ERROR_CODES, NOT_RAISED_IN_THIS_VERSION, REASONS, type ErrorCode, type Reason } from '../../domain/errors';
import { escapeHtml, inlineCode } from '../../web/html';
import { docsPage } from './docs-pages';

const codes = Object.keys(ERROR_CODES) as ErrorCode[];
const reasons = Object.keys(REASONS) as Reason[];

function statusOf(reason: Reason): number {
  const entry = REASONS[reason];
  return 'status' in entry ? entry.status : ERROR_CODES[entry.code].status;
}

const isHostedOnly = (reason: Reason) => 'hostedPagesOnly' in REASONS[reason];

const NOT_RAISED = 'Not raised in this version.';
const notRaised = (reason: Reason) => NOT_RAISED_IN_THIS_VERSION.includes(reason);

const BODY = 'Every error answer is JSON: `{code, reason?, message, docUrl, traceId, fields?}`. Match on `reason` first, then `code`; never on `message`. `traceId` equals the `x-trace-id` header: quote it when you ask for help.';
const RETRY = 'Retry only 429, 500, 503 and `idempotency_key_in_progress`, with the same request and the same Idempotency-Key after a short wait. Every other error repeats until the request, key or account state changes.';

export function errorPage(): string {
  const codeRows = codes
    .map((code) => `<tr id="${code.toLowerCase()}"><td><code>${code}</code></td><td>${ERROR_CODES[code].status}</td><td>${escapeHtml(ERROR_CODES[code].meaning)}</td></tr>`)
    .join('\n');
  const reasonRows = reasons
    .map((reason) => {
      const entry = REASONS[reason];
      const mark = notRaised(reason) ? `<strong>${NOT_RAISED}</strong> ` : '';
      return `<tr id="${reason}"><td><code>${reason}</code></td><td><code>${entry.code}</code> (${statusOf(reason)})</td><td>${mark}${inlineCode(entry.when)}</td><td>${inlineCode(entry.fix)}</td></tr>`;
    })
    .join('\n');
  return docsPage(
    'API errors',
    `<h1>API errors</h1>
<p>${inlineCode(BODY)}</p>
<p id="retrying">${inlineCode(RETRY)}</p>
<p>A reason marked “${NOT_RAISED}” is in the table so that clients can match it already: no request answers it and no hosted page shows it in this version.</p>
<h2 id="codes">Codes</h2>
<table><thead><tr><th>Code</th><th>Status</th><th>Meaning</th></tr></thead><tbody>
${codeRows}
</tbody></table>
<h2 id="reasons">Reasons</h2>
<table><thead><tr><th>Reason</th><th>Code</th><th>Cause</th><th>What to do</th></tr></thead><tbody>
${reasonRows}
</tbody></table>
<p>See also the <a href="/docs/api">API reference</a>.</p>`,
  );
}

/** A table cell's text: a pipe would end the cell. */
const cell = (text: string) => text.replace(/\|/g, '\\|');

/** docs/reference/errors.md: the same table in Markdown, the REST API's reasons under their code. */
export function errorsMarkdown(): string {
  const byCode = codes.map((code) => {
    const own = reasons.filter((reason) => REASONS[reason].code === code && !isHostedOnly(reason));
    const entries = own.map((reason) => {
      const status = statusOf(reason) === ERROR_CODES[code].status ? '' : `HTTP ${statusOf(reason)}. `;
      const mark = notRaised(reason) ? `**${NOT_RAISED}** ` : '';
      return `### \`${reason}\`\n\n${mark}${status}**Cause:** ${REASONS[reason].when}\n\n**What to do:** ${REASONS[reason].fix}\n`;
    });
    return [`## \`${code}\`\n\nHTTP ${ERROR_CODES[code].status}. ${ERROR_CODES[code].meaning}${own.length === 0 ? ' No reason: the code says it all.' : ''}\n`, ...entries].join('\n');
  });
  const hosted = reasons
    .filter(isHostedOnly)
    .map((reason) => `| \`${reason}\` | \`${REASONS[reason].code}\` (${statusOf(reason)}) | ${notRaised(reason) ? `**${NOT_RAISED}** ` : ''}${cell(REASONS[reason].when.replace(/^Hosted pages: (.)/, (_, first: string) => first.toUpperCase()))} | ${cell(REASONS[reason].fix)} |`);
  return `<!-- Generated from domain/errors.ts by \`npm run docs:errors\`: edit the table there, not this page. -->
# Errors

${BODY} \`docUrl\` is the server's \`/docs/errors\` page at the reason's anchor (\`/docs/errors#amount\`), or at the code's in lower case when there is no reason: the same content as this page.

\`\`\`json
{
  "code": "CONFLICT",
  "reason": "monthly_limit_reached",
  "message": "This payment would take the month past the starter plan's limit of 100000000 cents (100000000 used).",
  "docUrl": "http://127.0.0.1:3000/docs/errors#monthly_limit_reached",
  "traceId": "tr_5f0c6a9e2b7d4c1a8e3f9b60"
}
\`\`\`

A validation failure also lists \`fields\`: \`[{path, message}]\`, \`path\` empty for the whole body (an unknown key, say).

A reason marked **${NOT_RAISED}** is in the table so that clients can match it already: no request answers it and no hosted page shows it in this version.

## Retrying

${RETRY}

| code | status | meaning |
|---|---|---|
${codes.map((code) => `| [\`${code}\`](#${code.toLowerCase()}) | ${ERROR_CODES[code].status} | ${cell(ERROR_CODES[code].meaning)} |`).join('\n')}

${byCode.join('\n')}
## Reasons of the hosted pages

The hosted pages (checkout, payment link, invoice and portal pages) show these to the customer; the REST API never answers them.

| reason | code | cause | what to do |
|---|---|---|---|
${hosted.join('\n')}
`;
}
