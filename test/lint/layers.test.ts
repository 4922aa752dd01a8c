// The layers of the layout table are enforced by lint (eslint.config.mjs): each fixture under
// test/fixtures/lint/ is linted with the project's configuration as if it sat at the same path in
// the repository (test/fixtures/lint/domain/x.ts as domain/x.ts), and must be reported for the
// import it makes, or, for the clean ones, not at all.
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { ESLint } from 'eslint';

const repo = path.resolve(__dirname, '../..');
const fixtures = path.join(repo, 'test/fixtures/lint');
const RULE = '@typescript-eslint/no-restricted-imports';

/** Each fixture, by the path it stands for, with the start of the message it must draw. */
const VIOLATIONS: Record<string, string> = {
  'domain/imports-node-crypto.ts': 'No Node built-ins in domain/',
  'domain/imports-config-type.ts': 'domain/ imports nothing of ours',
  'workflows/imports-knex.ts': 'Workflow code imports only @temporalio/workflow',
  'workflows/imports-activities-at-run-time.ts': 'Workflow code imports activity types only',
  'processor/sandbox/imports-api.ts': 'The processor imports domain/, db/, config/ and web/ only: not api/',
  'api/routes/imports-processor.ts': 'api/ and the processor do not import each other',
  'api/routes/imports-activities.ts': 'api/ imports activity types only',
  'activities/imports-index.ts': 'activities/index.ts assembles the factories',
  'services/widgets/imports-api.ts': 'services/ are called by api/, cli/ and activities/',
  'services/widgets/imports-processor.ts': 'services/ get the processors as a dependency',
  'views/imports-db-at-run-time.ts': 'views/ import row types from db/ only',
  'db/imports-views.ts': 'db/ imports domain/ (and crypto/) only: rows in, rows out',
};
const CLEAN = ['domain/clean.ts', 'workflows/clean.ts', 'processor/sandbox/clean.ts', 'api/routes/clean.ts', 'activities/clean.ts', 'services/widgets/clean.ts', 'views/clean.ts'];

function filesUnder(dir: string, prefix = ''): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) =>
    entry.isDirectory() ? filesUnder(path.join(dir, entry.name), `${prefix}${entry.name}/`) : [`${prefix}${entry.name}`],
  );
}

describe('layers enforced by lint', function () {
  this.timeout(60_000);
  // Only the import rule, and without type information (the fixtures' stand-in paths are not files).
  const eslint = new ESLint({
    cwd: repo,
    overrideConfig: { languageOptions: { parserOptions: { projectService: false } } },
    ruleFilter: ({ ruleId }) => ruleId === RULE,
  });

  async function messagesFor(fixture: string): Promise<string[]> {
    const code = readFileSync(path.join(fixtures, fixture), 'utf8');
    const [result] = await eslint.lintText(code, { filePath: path.join(repo, fixture) });
    assert.equal(result!.messages.filter((m) => m.fatal).length, 0, `${fixture} parses`);
    return result!.messages.map((m) => `${m.ruleId}: ${m.message}`);
  }

  it('has a case for every fixture', () => {
    assert.deepEqual(filesUnder(fixtures).sort(), [...Object.keys(VIOLATIONS), ...CLEAN].sort());
  });

  for (const [fixture, expected] of Object.entries(VIOLATIONS)) {
    it(`reports ${fixture}`, async () => {
      const messages = await messagesFor(fixture);
      assert.equal(messages.length, 1, messages.join('\n'));
      assert.ok(messages[0]!.startsWith(`${RULE}: `) && messages[0]!.includes(expected), messages[0]);
    });
  }

  for (const fixture of CLEAN) {
    it(`accepts ${fixture}`, async () => {
      assert.deepEqual(await messagesFor(fixture), []);
    });
  }
});
