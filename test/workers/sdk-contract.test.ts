// What the embedded engine relies on inside @temporalio/* 1.24.0, pinned: internal module paths,
// the raw activation/completion shapes, failure shapes. An SDK upgrade that changes any of them
// fails here first, loudly, instead of inside the engine.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { ApplicationFailure, defaultPayloadConverter } from '@temporalio/common';
import { coresdk } from '@temporalio/proto';
import { buildActivation, orderJobs } from '../../workers/embedded-engine/jobs';
import type { Job } from '../../workers/embedded-engine/jobs';
import { startAttempt } from '../../workers/embedded-engine/activity-runner';
import { createWorkflowCreator } from '../../workers/embedded-engine/sandbox';
import { bundleWorkflows } from '../../workers/embedded-engine/workflow-bundle';
import { randomnessSeed, seedBytes } from '../../workers/embedded-engine/seed';
import { silentLog } from '../../workers/embedded-engine/log';

const workflowsPath = path.resolve(__dirname, '../fixtures/workflows/index.ts');
const root = path.resolve(__dirname, '../..');

describe('SDK contract (what the embedded engine depends on)', function () {
  it('pins every @temporalio/* package to one exact version, 1.24.0', function () {
    const manifest = JSON.parse(fs.readFileSync(path.join(root, 'package.json'), 'utf8')) as { dependencies: Record<string, string> };
    const declared = Object.entries(manifest.dependencies).filter(([name]) => name.startsWith('@temporalio/'));
    assert.ok(declared.length >= 5);
    for (const [name, range] of declared) assert.equal(range, '1.24.0', `${name} must be pinned exactly`);
    for (const dir of fs.readdirSync(path.join(root, 'node_modules/@temporalio'))) {
      const installed = JSON.parse(fs.readFileSync(path.join(root, 'node_modules/@temporalio', dir, 'package.json'), 'utf8')) as { version: string };
      assert.equal(installed.version, '1.24.0', `installed @temporalio/${dir}`);
    }
  });

  describe('the workflow sandbox', function () {
    let creator: ReturnType<typeof createWorkflowCreator>;
    before(async function () {
      creator = createWorkflowCreator(await bundleWorkflows(workflowsPath), ['record']);
    });
    after(async function () {
      await creator?.destroy();
    });

    async function open(workflowType: string, runId: string) {
      const now = Date.UTC(2025, 0, 1);
      const workflow = await creator.createWorkflow({
        info: {
          workflowId: `contract/${runId}`, runId, workflowType, searchAttributes: {}, typedSearchAttributes: undefined as never,
          taskQueue: 'kasi', namespace: 'default', firstExecutionRunId: runId, originalExecutionRunId: runId,
          startTime: new Date(now), runStartTime: new Date(now), taskTimeoutMs: 10_000, attempt: 1, historyLength: 3, historySize: 0,
          continueAsNewSuggested: false, targetWorkerDeploymentVersionChanged: false, suggestedContinueAsNewReasons: undefined, currentBuildId: '',
          unsafe: { now: () => now, isReplaying: false, isReplayingHistoryEvents: false, random: undefined as never }, priority: undefined,
        },
        randomnessSeed: seedBytes(randomnessSeed(runId)),
        now,
        showStackTraceSources: false,
      });
      const init = (args: unknown[]): Job => ({
        initializeWorkflow: { workflowType, workflowId: `contract/${runId}`, arguments: defaultPayloadConverter.toPayload(args) ? args.map((a) => defaultPayloadConverter.toPayload(a)) : [], randomnessSeed: randomnessSeed(runId), firstExecutionRunId: runId, attempt: 1, startTime: { seconds: now / 1000 }, workflowTaskTimeout: { seconds: 10 } },
      });
      return { workflow, init, now };
    }

    it('activate() returns a plain completion whose commands carry a timer, as the engine reads them', async function () {
      const { workflow, init, now } = await open('sleeper', 'r-timer');
      const completion = await workflow.activate(buildActivation('r-timer', now, 3, [], [init([5000])]));
      assert.ok(!(completion instanceof Uint8Array), 'a plain object, not an encoded buffer');
      assert.equal(completion.runId, 'r-timer');
      const commands = completion.successful?.commands ?? [];
      assert.equal(commands.length, 1);
      assert.equal(commands[0]?.startTimer?.seq, 1);
      assert.equal(Number(commands[0]?.startTimer?.startToFireTimeout?.seconds), 5);
      assert.ok(Array.isArray(completion.successful?.usedInternalFlags), 'SDK flags come back for WorkflowTaskCompleted');
      const done = await workflow.activate(buildActivation('r-timer', now + 5000, 7, [], [{ fireTimer: { seq: 1 } }]));
      const result = done.successful?.commands?.[0]?.completeWorkflowExecution?.result;
      assert.equal(defaultPayloadConverter.fromPayload(result ?? {}), 'slept 5000');
      await workflow.dispose();
    });

    it('an activity is a scheduleActivity command with type, seq, timeouts and retry policy', async function () {
      const { workflow, init, now } = await open('retrying', 'r-activity');
      const completion = await workflow.activate(buildActivation('r-activity', now, 3, [], [init([1, 'X', 3])]));
      const schedule = completion.successful?.commands?.[0]?.scheduleActivity;
      assert.equal(schedule?.activityType, 'flaky');
      assert.equal(schedule?.seq, 1);
      assert.equal(schedule?.activityId, '1');
      assert.equal(Number(schedule?.startToCloseTimeout?.seconds), 60);
      assert.equal(schedule?.retryPolicy?.maximumAttempts, 3);
      assert.deepEqual([...(schedule?.retryPolicy?.nonRetryableErrorTypes ?? [])], ['CardDeclined']);
      assert.equal(schedule?.cancellationType ?? 0, coresdk.workflow_commands.ActivityCancellationType.TRY_CANCEL, "unset means TRY_CANCEL");
      await workflow.dispose();
    });

    it('a plain Error thrown by workflow code is a failed completion (a task failure), not failWorkflowExecution', async function () {
      const { workflow, init, now } = await open('brokenTask', 'r-broken');
      await workflow.activate(buildActivation('r-broken', now, 3, [], [init([])]));
      const completion = await workflow.activate(buildActivation('r-broken', now + 1000, 7, [], [{ fireTimer: { seq: 1 } }]));
      assert.equal(completion.successful, undefined);
      assert.match(completion.failed?.failure?.message ?? '', /bug in workflow code/);
      await workflow.dispose();
    });

    it('an ApplicationFailure fails the workflow through a command', async function () {
      const { workflow, init, now } = await open('failing', 'r-failing');
      const completion = await workflow.activate(buildActivation('r-failing', now, 3, [], [init([])]));
      const failure = completion.successful?.commands?.[0]?.failWorkflowExecution?.failure;
      assert.equal(failure?.applicationFailureInfo?.type, 'CardExpired');
      assert.equal(failure?.applicationFailureInfo?.nonRetryable, true);
      await workflow.dispose();
    });

    it('a query activation is answered with respondToQuery', async function () {
      const { workflow, init, now } = await open('queryable', 'r-query');
      await workflow.activate(buildActivation('r-query', now, 3, [], [init([])]));
      const answer = await workflow.activate(coresdk.workflow_activation.WorkflowActivation.fromObject({ runId: 'r-query', jobs: [{ queryWorkflow: { queryId: 'q1', queryType: 'state', arguments: [] } }] }));
      const respond = answer.successful?.commands?.[0]?.respondToQuery;
      assert.equal(respond?.queryId, 'q1');
      assert.equal(defaultPayloadConverter.fromPayload(respond?.succeeded?.response ?? {}), 'waiting');
      await workflow.dispose();
    });
  });

  it('jobs are ordered as Core orders them: initialize, patches, seed, signals, then the rest', function () {
    const ordered = orderJobs([{ fireTimer: { seq: 1 } }, { signalWorkflow: { signalName: 's' } }, { notifyHasPatch: { patchId: 'p' } }, { initializeWorkflow: {} }]);
    assert.deepEqual(ordered.map((j) => Object.keys(j)[0]), ['initializeWorkflow', 'notifyHasPatch', 'signalWorkflow', 'fireTimer']);
  });

  it("the SDK's Activity class returns Core's activity result shapes, keeping the error type", async function () {
    const info = { activityId: '1', activityType: 'x', namespace: 'default', attempt: 1 } as never;
    const ok = await startAttempt(async (a: unknown) => `got ${String(a)}`, info, [defaultPayloadConverter.toPayload('a')], silentLog).result;
    assert.ok('completed' in ok);
    assert.equal(defaultPayloadConverter.fromPayload(ok.completed.result ?? {}), 'got a');
    const failed = await startAttempt(async () => {
      throw ApplicationFailure.create({ message: 'no', type: 'CardDeclined' });
    }, info, [], silentLog).result;
    assert.ok('failed' in failed);
    assert.equal(failed.failed.failure.applicationFailureInfo?.type, 'CardDeclined');
    const plain = await startAttempt(async () => {
      throw new TypeError('oops');
    }, info, [], silentLog).result;
    assert.ok('failed' in plain);
    assert.equal(plain.failed.failure.applicationFailureInfo?.type, 'TypeError', 'plain errors keep their class name as the type');
  });

  it("the randomness seed is Core's: SipHash-1-3 of the run id, as 8 big-endian bytes", function () {
    // Pinned from the first (BigInt) implementation, whose seeds replays on the real Core confirm
    // (the 'seeded' scenario of the engine suite): a run id, and ids of every length modulo 8.
    const seed = randomnessSeed('00000000-0000-0000-0000-000000000000');
    assert.equal(seed.toString(), '13908316863725478721');
    assert.equal(seed.unsigned, true);
    assert.deepEqual(seedBytes(seed), [0xc1, 0x04, 0x44, 0x7f, 0x85, 0xee, 0xa3, 0x41]);
    const byLength = ['3476900567878811119', '9054207941445322226', '8991754394568984780', '13184266478643366696', '13102012996104403035', '3573543300530156370', '10166977347338288517', '15627817235890265987', '13663578322956609627', '11891537883247676149'];
    assert.deepEqual(byLength.map((_, n) => randomnessSeed('k'.repeat(n)).toString()), byLength);
  });
});
