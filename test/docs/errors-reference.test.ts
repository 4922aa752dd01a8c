// docs/reference/errors.md is generated from the one table of errors (domain/errors.ts): the
// committed page must be what `npm run docs:errors` writes now, so a reason added or reworded in
// the table cannot leave the page behind.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { errorsMarkdown } from '../../api/docs/error-page';
import { REASONS, type Reason } from '../../domain/errors';
import { ERRORS_PAGE } from '../../scripts/docs-errors';

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
});
