// docs/reference/errors.md is generated from the one table of errors (domain/errors.ts): the
// committed page must be what `npm run docs:errors` writes now, so a reason added or reworded in
// the table cannot leave the page behind. The reasons marked "not raised in this version" are
// exactly those that no source file names outside the table, its docs and the routes' lists of
// what they may answer.
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { errorPage, errorsMarkdown } from '../../api/docs/error-page';
import { NOT_RAISED_IN_THIS_VERSION, REASONS, type Reason } from '../../domain/errors';
import { ERRORS_PAGE } from '../../scripts/docs-errors';

const ROOT = path.resolve(__dirname, '../..');
/** Where nothing is raised: the table itself, the pages and document made from it, and the tests. */
const NOT_SOURCE = /^(api\/docs|api\/openapi)\/|^domain\/errors\.ts$/;
const NOT_SOURCE_FOLDERS = new Set(['node_modules', 'test', 'scripts', 'bench', 'docs']);

/** The code of the service, with each route's `errors: [...]` (what it may answer, not a raise) left out. */
function source(): string {
  return readdirSync(ROOT, { withFileTypes: true })
    .filter((entry) => entry.isDirectory() && !entry.name.startsWith('.') && !NOT_SOURCE_FOLDERS.has(entry.name))
    .flatMap((dir) => readdirSync(path.join(ROOT, dir.name), { recursive: true, encoding: 'utf8' }).map((f) => path.posix.join(dir.name, f)))
    .filter((f) => f.endsWith('.ts') && !f.endsWith('.d.ts') && !NOT_SOURCE.test(f))
    .map((f) => readFileSync(path.join(ROOT, f), 'utf8').replace(/\berrors: \[[^\]]*\]/g, ''))
    .join('\n');
}

describe('docs/reference/errors.md', () => {
  it('is what npm run docs:errors makes from domain/errors.ts', () => {
    assert.equal(readFileSync(ERRORS_PAGE, 'utf8'), errorsMarkdown(), 'run `npm run docs:errors` and commit docs/reference/errors.md');
  });

  it('gives every reason its cause and what to do', () => {
    const page = errorsMarkdown();
    for (const reason of Object.keys(REASONS) as Reason[]) {
      const { when, fix } = REASONS[reason];
      // The hosted pages' own section drops their causes' "Hosted pages: " (and starts them in capitals).
      assert.ok(page.toLowerCase().includes(when.replace(/^Hosted pages: /, '').toLowerCase()), `${reason}: its cause on the page`);
      assert.ok(page.includes(`\`${reason}\``), reason);
      assert.ok(page.includes(fix), `${reason}: its fix on the page`);
    }
  });

  it('marks as not raised in this version exactly the reasons no source file raises, on both pages', () => {
    const code = source();
    const unnamed = (Object.keys(REASONS) as Reason[]).filter((reason) => !code.includes(`'${reason}'`));
    assert.deepEqual([...NOT_RAISED_IN_THIS_VERSION].sort(), unnamed.sort());
    for (const reason of ['portal_action_refused', 'page_busy', 'promotion_invalid']) assert.ok(unnamed.includes(reason as Reason), `${reason} is not raised`);
    for (const reason of ['meter_invalid', 'meter_exists', 'coupon_invalid', 'idempotency_key_missing', 'expired']) assert.ok(!unnamed.includes(reason as Reason), `${reason} is raised (through a helper, over two lines, or as a variable's value)`);
    const html = errorPage();
    const markdown = errorsMarkdown();
    for (const reason of Object.keys(REASONS) as Reason[]) {
      const row = new RegExp(`<tr id="${reason}">(.*?)</tr>`).exec(html)![1]!;
      const entry = markdown.slice(markdown.indexOf(`\`${reason}\``)).split(/\n(?=###|\|)/)[0]!;
      const marked = NOT_RAISED_IN_THIS_VERSION.includes(reason);
      assert.equal(row.includes('Not raised in this version.'), marked, `${reason} on /docs/errors`);
      assert.equal(entry.includes('Not raised in this version.'), marked, `${reason} in errors.md: ${entry}`);
    }
  });
});
