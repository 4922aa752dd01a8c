// Patching and the fidelity check, for either engine (patching.test.ts: the embedded engine;
// patching.time-skipping.test.ts: Temporal's test server): the histories an engine writes replay
// on Temporal's real Core, a change behind patched() replays old histories, and a careless change
// is caught.
import assert from 'node:assert/strict';
import path from 'node:path';
import { DeterminismViolationError } from '@temporalio/workflow';
import type { FixtureActivities } from '../fixtures/workflows/activities';
import { createWorkflowEnv, replayHistory, skipWithoutTestServer } from '../support/workflow-env';
import type { WorkflowEngineKind, WorkflowEnv } from '../support/workflow-env';

const versions = path.resolve(__dirname, '../fixtures/workflows/patching');
const v1 = path.join(versions, 'v1.ts');
const v2 = path.join(versions, 'v2.ts');
const unpatched = path.join(versions, 'unpatched.ts');
const HOUR = 60 * 60 * 1000;

export function patchingScenarios(title: string, on: WorkflowEngineKind): void {
  describe(title, function () {
    const recorded: string[] = [];
    const activities: Pick<FixtureActivities, 'record'> = {
      async record(label) {
        recorded.push(label);
        return label;
      },
    };
    let onV1: WorkflowEnv;
    let onV2: WorkflowEnv;

    before(async function () {
      if (on === 'time-skipping-server') skipWithoutTestServer(this);
      onV1 = await createWorkflowEnv({ workflowsPath: v1, activities, on });
      onV2 = await createWorkflowEnv({ workflowsPath: v2, activities, on });
    });
    after(async function () {
      await onV1?.teardown();
      await onV2?.teardown();
    });

    it('a run started on version 1 replays on version 2, whose change is behind patched()', async function () {
      await onV1.port.start({ workflowType: 'patchable', workflowId: 'patch/in-flight', args: [] });
      await onV1.sleep(HOUR / 2);
      // Mid-run, as a worker deployed with version 2 would pick it up.
      await replayHistory(await onV1.history('patch/in-flight'), v2, 'patch/in-flight');
      assert.equal(await onV1.result('patch/in-flight'), 'v1');
      await replayHistory(await onV1.history('patch/in-flight'), v2, 'patch/in-flight');
    });

    it('a run on version 2 records the patch marker and replays', async function () {
      recorded.length = 0;
      await onV2.port.start({ workflowType: 'patchable', workflowId: 'patch/new', args: [] });
      assert.equal(await onV2.result('patch/new'), 'v2');
      assert.deepEqual(recorded, ['notified', 'v2']);
      const markers = (await onV2.history('patch/new')).events?.filter((e) => e.markerRecordedEventAttributes?.markerName === 'core_patch');
      assert.equal(markers?.length, 1);
      await onV2.replay('patch/new');
    });

    it('the same change without patched() is caught as a determinism violation', async function () {
      await onV1.port.start({ workflowType: 'patchable', workflowId: 'patch/careless', args: [] });
      await onV1.result('patch/careless');
      await assert.rejects(replayHistory(await onV1.history('patch/careless'), unpatched, 'patch/careless'), DeterminismViolationError);
    });
  });
}
