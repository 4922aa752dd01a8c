// {docs_url}: one page explaining every error code and reason; each has an anchor, which is
// what an error body's docUrl points at.
import { ERROR_CODES, REASONS, type ErrorCode, type Reason } from '../../domain/errors';
import { escapeHtml, htmlPage, inlineCode } from '../../web/html';

export function errorPage(): string {
  const codes = (Object.keys(ERROR_CODES) as ErrorCode[])
    .map((code) => `<tr id="${code.toLowerCase()}"><td><code>${code}</code></td><td>${ERROR_CODES[code].status}</td><td>${escapeHtml(ERROR_CODES[code].meaning)}</td></tr>`)
    .join('\n');
  const reasons = (Object.keys(REASONS) as Reason[])
    .map((reason) => {
      const entry = REASONS[reason];
      const status = 'status' in entry ? entry.status : ERROR_CODES[entry.code].status;
      return `<tr id="${reason}"><td><code>${reason}</code></td><td><code>${entry.code}</code> (${status})</td><td>${inlineCode(entry.when)}</td></tr>`;
    })
    .join('\n');
  return htmlPage(
    'Kasi API errors',
    `<h1>API errors</h1>
<p>Every error answer is JSON: <code>{code, reason?, message, docUrl, traceId, fields?}</code>. Match on <code>reason</code> first, then <code>code</code>; never on <code>message</code>. <code>traceId</code> equals the <code>x-trace-id</code> header: quote it when you ask for help.</p>
<p>Retry only 429, 500, 503 and <code>idempotency_key_in_progress</code>, with the same request and the same Idempotency-Key after a short wait. Every other error repeats until the request, key or account state changes.</p>
<h2>Codes</h2>
<table><thead><tr><th>Code</th><th>Status</th><th>Meaning</th></tr></thead><tbody>
${codes}
</tbody></table>
<h2>Reasons</h2>
<table><thead><tr><th>Reason</th><th>Code</th><th>When</th></tr></thead><tbody>
${reasons}
</tbody></table>
<p>See also the <a href="api">API reference</a>.</p>`,
  );
}
