// Workflow versioning: every history kept under test/histories/ (recorded by
// scripts/record-histories.ts on Temporal's test server, test/histories/README.md) replays on the
// current workflow code, on Temporal's own Core, in process: no server. A change to a deployed
// workflow that is not behind patched() makes a recorded history fail here, naming its file. And
// every workflow of workflows/index.ts has recorded histories, so a new workflow without them fails.
import assert from 'node:assert/strict';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { IllegalStateError } from '@temporalio/common';
import { historyFromJSON } from '@temporalio/common/lib/proto-utils';
import type { temporal } from '@temporalio/proto';
import { DefaultLogger, Runtime, Worker, type ReplayResult } from '@temporalio/worker';
import { DeterminismViolationError } from '@temporalio/workflow';
import * as workflows from '../../workflows';
import { bundleWorkflows } from '../../workers/embedded-engine/workflow-bundle';
import { WORKFLOWS_PATH } from '../../workers/service';
import { HISTORY_SCENARIOS, historyFile, workflowIdOf } from './history-scenarios';

const HISTORIES_DIR = path.resolve(__dirname, '../histories');
const FIXTURES = path.resolve(__dirname, '../fixtures/workflows/recorded');

/** The workflow types of workflows/index.ts: its exported functions (signals and updates are objects). */
const WORKFLOW_TYPES = Object.entries(workflows)
  .filter(([, value]) => typeof value === 'function')
  .map(([name]) => name)
  .sort();

/** Every history file, as `<workflowType>/<scenario>.json` relative to test/histories/. */
function historyFiles(): string[] {
  return readdirSync(HISTORIES_DIR)
    .filter((entry) => statSync(path.join(HISTORIES_DIR, entry)).isDirectory())
    .flatMap((type) =>
      readdirSync(path.join(HISTORIES_DIR, type))
        .filter((name) => name.endsWith('.json'))
        .map((name) => `${type}/${name}`),
    )
    .sort();
}

function readHistory(file: string): temporal.api.history.v1.IHistory {
  return historyFromJSON(JSON.parse(readFileSync(path.join(HISTORIES_DIR, file), 'utf8')));
}

function workflowTypeOf(history: temporal.api.history.v1.IHistory): string | null | undefined {
  return history.events?.[0]?.workflowExecutionStartedEventAttributes?.workflowType?.name;
}

/**
 * Core's log shows errors only: the determinism failures below are on purpose. The runtime is per
 * process; another test file in this mocha worker may have installed it already.
 */
function quietRuntime(): void {
  try {
    Runtime.install({
      logger: new DefaultLogger('ERROR', (entry) => console.error(`${entry.level}: ${entry.message}`)),
      telemetryOptions: { logging: { forward: {}, filter: { core: 'ERROR', other: 'ERROR' } } },
    });
  } catch (err) {
    if (!(err instanceof IllegalStateError)) throw err;
  }
}

/** Replays the files on one replay worker with the bundle of `workflowsPath`, by workflow id. */
async function replayAll(files: string[], workflowsPath: string): Promise<Map<string, ReplayResult>> {
  quietRuntime();
  const bundle = await bundleWorkflows(workflowsPath);
  const histories = files.map((file) => ({ workflowId: workflowIdOf(file), history: readHistory(file) }));
  const results = new Map<string, ReplayResult>();
  for await (const result of Worker.runReplayHistories({ workflowBundle: { code: bundle.code } }, histories)) results.set(result.workflowId, result);
  return results;
}

const files = historyFiles();
const of = (type: string) => files.filter((file) => file.startsWith(`${type}/`));

describe('recorded workflow histories (test/histories/) replay on the current workflow code', function () {
  let results: Map<string, ReplayResult>;

  before(async function () {
    // The bundles (one webpack build each, in child processes) are built side by side.
    void Promise.all([WORKFLOWS_PATH, ...['extra-timer', 'swapped-activity', 'patched'].map((name) => path.join(FIXTURES, `${name}.ts`))].map((p) => bundleWorkflows(p).catch(() => undefined)));
    results = await replayAll(files, WORKFLOWS_PATH);
  });

  for (const file of files) {
    it(file, function () {
      const result = results.get(workflowIdOf(file));
      assert.ok(result, `test/histories/${file} was not replayed`);
      if (result.error === undefined) return;
      assert.fail(
        `test/histories/${file} does not replay on the current workflow code: ${result.error.name}: ${result.error.message}\n` +
          'Workflows already running on the old code would fail the same way. Put the change behind patched() ' +
          '(and record the new path as an extra file); never record this file again to make it pass. See test/histories/README.md.',
      );
    });
  }

  it('every workflow of workflows/index.ts has at least one recorded history', function () {
    assert.ok(WORKFLOW_TYPES.length > 0, 'workflows/index.ts exports no workflow');
    const without = WORKFLOW_TYPES.filter((type) => of(type).length === 0);
    assert.deepEqual(without, [], `workflows without a recorded history under test/histories/: add their scenarios to test/workflows/history-scenarios.ts and run npm run histories:record`);
  });

  it('every scenario of history-scenarios.ts has its recorded file', function () {
    const missing = HISTORY_SCENARIOS.map(historyFile).filter((file) => !files.includes(file));
    assert.deepEqual(missing, [], 'scenarios not recorded yet: run npm run histories:record');
  });

  it('each file is a history of the workflow its folder names, and that workflow is exported', function () {
    for (const file of files) {
      const folder = file.split('/')[0]!;
      assert.ok(
        WORKFLOW_TYPES.includes(folder),
        `test/histories/${folder}/ is not a workflow of workflows/index.ts: a workflow with runs still open must stay (remove its histories only once none can be)`,
      );
      assert.equal(workflowTypeOf(readHistory(file)), folder, `test/histories/${file}: the workflow type in its started event`);
    }
  });

  describe('a change not behind patched() fails the replay', function () {
    it('one more command (a timer first) in checkoutLifetime: the recorded checkoutLifetime histories are determinism violations', async function () {
      // Core matches a timer by its sequence number, not its duration: in never-paid-expired the
      // extra timer takes the place of the one that waited out the 30 minutes, the next wait is
      // then over at once, and the commands line up again. Every other path catches it, which is
      // why each path worth keeping is recorded.
      const checkouts = of('checkoutLifetime').filter((file) => file !== 'checkoutLifetime/never-paid-expired.json');
      assert.ok(checkouts.length > 0);
      const changed = await replayAll(checkouts, path.join(FIXTURES, 'extra-timer.ts'));
      for (const file of checkouts) {
        const error = changed.get(workflowIdOf(file))?.error;
        assert.ok(error instanceof DeterminismViolationError, `test/histories/${file} replayed on extra-timer.ts: ${error?.message ?? 'no error'}`);
      }
    });

    it('another activity in webhookResend (same number of commands): a determinism violation', async function () {
      const [file] = of('webhookResend');
      assert.ok(file);
      const bundle = await bundleWorkflows(path.join(FIXTURES, 'swapped-activity.ts'));
      quietRuntime();
      await assert.rejects(
        Worker.runReplayHistory({ workflowBundle: { code: bundle.code } }, readHistory(file), workflowIdOf(file)),
        (err: unknown) => err instanceof DeterminismViolationError && /activity/i.test(err.message),
      );
    });

    it('the same timer behind patched(): every recorded checkoutLifetime history still replays', async function () {
      const checkouts = of('checkoutLifetime');
      const patchedResults = await replayAll(checkouts, path.join(FIXTURES, 'patched.ts'));
      for (const file of checkouts) {
        const error = patchedResults.get(workflowIdOf(file))?.error;
        assert.equal(error, undefined, `test/histories/${file} on patched.ts: ${error?.message}`);
      }
    });
  });
});
