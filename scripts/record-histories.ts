// Records the workflows' histories kept under test/histories/ (test/histories/README.md), on
// Temporal's time-skipping test server (scripts/install-temporal.sh installs it).
//
//   npx tsx scripts/record-histories.ts                      records the scenarios that have no file yet
//   npx tsx scripts/record-histories.ts webhookResend         only this workflow's (or one scenario's:
//                                                            checkoutLifetime/paid-first-attempt)
//   npx tsx scripts/record-histories.ts --overwrite NAME...   records again over existing files: never
//                                                            for a deployed workflow whose replay fails
//   npx tsx scripts/record-histories.ts --out DIR             writes under DIR instead
import { parseArgs } from 'node:util';
import path from 'node:path';
import { missingToolMessage, toolPath } from '../workers/tools';
import { recordHistories } from '../test/workflows/history-recorder';

async function main(): Promise<void> {
  const { values, positionals } = parseArgs({
    allowPositionals: true,
    options: { overwrite: { type: 'boolean', default: false }, out: { type: 'string' } },
  });
  if (toolPath('temporal-test-server') === undefined) throw new Error(missingToolMessage('temporal-test-server'));
  if (values.overwrite && positionals.length === 0) {
    throw new Error('--overwrite needs the workflow types or scenarios to record again: a failing replay is fixed with patched(), not by recording over it (test/histories/README.md)');
  }
  let recorded = 0;
  await recordHistories({
    only: positionals.length > 0 ? positionals : undefined,
    overwrite: values.overwrite,
    dir: values.out === undefined ? undefined : path.resolve(values.out),
    onScenario(scenario, outcome, file) {
      if (outcome === 'recorded') recorded++;
      console.log(`${outcome === 'recorded' ? 'recorded' : 'kept    '} ${path.relative(process.cwd(), file)}  (${scenario.what})`);
    },
  });
  console.log(recorded === 0 ? 'nothing to record: every scenario has its file (--overwrite NAME records one again)' : `${recorded} recorded`);
}

main().then(
  // The test server's connection and Core's runtime keep handles open after teardown.
  () => process.exit(0),
  (err: unknown) => {
    console.error(err instanceof Error ? err.message : err);
    process.exit(1);
  },
);
