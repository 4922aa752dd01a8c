// Writes docs/reference/errors.md from the one table of errors (domain/errors.ts), so the page and
// the served /docs/errors never differ: `npm run docs:errors` after changing the table
// (test/docs/errors-reference.test.ts fails until the page is written again).
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { errorsMarkdown } from '../api/docs/error-page';

export const ERRORS_PAGE = path.resolve(__dirname, '../docs/reference/errors.md');

if (require.main === module) writeFileSync(ERRORS_PAGE, errorsMarkdown());
