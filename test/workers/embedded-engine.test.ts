// The embedded engine's own suite: the workflow scenarios (workflow-scenarios.ts, which
// workflow-scenarios.time-skipping.test.ts runs on Temporal's test server too), and what only this
// engine has: its workflow cache, shared search-attribute sets, overlapping activations, and how
// it reports a broken workflow.
import assert from 'node:assert/strict';
import { Context } from '@temporalio/activity';
import { defineSearchAttributeKey } from '@temporalio/common';
import { createWorkflowEnv } from '../support/workflow-env';
import type { WorkflowEnv } from '../support/workflow-env';
import { fixtureWorkflowsPath as workflowsPath, workflowScenarios } from './workflow-scenarios';
import { WorkflowTaskFailedError } from '../../orchestration/errors';
import { EmbeddedEngine } from '../../workers/embedded-engine/engine';

const SECOND = 1000;
const HOUR = 60 * 60 * SECOND;

// Every scenario twice: as it runs, and with every workflow evicted from the sandbox after each of
// its tasks, so each next task first rebuilds it by replaying what it was given. An activity still
// running after 50 ms of real time is taken as hung, so the hung-activity scenario is quick.
workflowScenarios('embedded engine: workflow scenarios', 'embedded', { hungActivityAfterMs: 50 });
workflowScenarios('embedded engine: workflow scenarios, evicting every workflow after each task', 'embedded', { hungActivityAfterMs: 50, maxCachedWorkflows: 0 });

describe('embedded engine: workflow cache', function () {
  it('a workflow going to sleep for a minute or more leaves the sandbox; past the cache size the least recently used goes', async function () {
    const engine = await EmbeddedEngine.create({ workflowsPath, activities: { record: async (label: string) => label }, clock: 'virtual', maxCachedWorkflows: 2 });
    try {
      const start = (id: string, ms: number) => engine.start({ workflowType: 'sleeper', workflowId: id, args: [ms] });
      start('sleep/a', 30 * SECOND);
      start('sleep/b', 30 * SECOND);
      start('sleep/c', 30 * SECOND);
      // Started last, so the cache alone would keep it.
      start('sleep/long', HOUR);
      await engine.runUntilIdle();
      const inSandbox = (id: string) => engine.describe(id)?.inSandbox;
      assert.equal(inSandbox('sleep/long'), false, 'an hour-long sleep leaves at once');
      assert.deepEqual(['sleep/a', 'sleep/b', 'sleep/c'].map(inSandbox), [false, true, true], 'two stay, the oldest goes');
      await engine.advance(HOUR);
      for (const id of ['sleep/long', 'sleep/a', 'sleep/b', 'sleep/c']) assert.equal(engine.describe(id)?.status, 'COMPLETED');
      assert.equal(await engine.result('sleep/long'), `slept ${HOUR}`, 'rebuilt, it carries on');
    } finally {
      await engine.shutdown();
    }
  });
  it('a workflow waiting for a signal only stays while there is room, and goes before the least recently used', async function () {
    const engine = await EmbeddedEngine.create({ workflowsPath, activities: { record: async (label: string) => label }, clock: 'virtual', maxCachedWorkflows: 2 });
    try {
      const inSandbox = (id: string) => engine.describe(id)?.inSandbox;
      // No timeout: it waits for the poke alone, as a workflow on a test clock waits for its advance.
      engine.start({ workflowType: 'waitForPoke', workflowId: 'poke/only', args: [undefined] });
      await engine.runUntilIdle();
      assert.equal(inSandbox('poke/only'), true, 'a signal may come at any moment: it stays');
      engine.start({ workflowType: 'sleeper', workflowId: 'sleep/older', args: [30 * SECOND] });
      await engine.runUntilIdle();
      engine.start({ workflowType: 'sleeper', workflowId: 'sleep/newer', args: [30 * SECOND] });
      await engine.runUntilIdle();
      // The cache alone would have let the least recently used go, sleep/older.
      assert.deepEqual(['poke/only', 'sleep/older', 'sleep/newer'].map(inSandbox), [false, true, true]);
      await engine.signal('poke/only', 'poke');
      await engine.runUntilIdle();
      assert.equal(engine.describe('poke/only')?.status, 'COMPLETED', 'rebuilt, it takes the signal');
    } finally {
      await engine.shutdown();
    }
  });
});

describe('embedded engine: search attributes', function () {
  it('runs started with the same set share it, and an upsert changes only its own run', async function () {
    const engine = await EmbeddedEngine.create({ workflowsPath, activities: { record: async (label: string) => label }, clock: 'virtual' });
    try {
      const searchAttributes = [{ key: defineSearchAttributeKey('KasiLabel', 'KEYWORD'), value: 'new' }];
      engine.start({ workflowType: 'sleeper', workflowId: 'label/kept', args: [HOUR], searchAttributes });
      engine.start({ workflowType: 'relabel', workflowId: 'label/changed', args: ['paid'], searchAttributes });
      await engine.runUntilIdle();
      assert.deepEqual(engine.describe('label/kept')?.searchAttributes, { KasiLabel: 'new' });
      assert.deepEqual(engine.describe('label/changed')?.searchAttributes, { KasiLabel: 'paid' });
      // A run started with the same set afterwards still gets the set as it was given.
      engine.start({ workflowType: 'sleeper', workflowId: 'label/later', args: [HOUR], searchAttributes });
      await engine.runUntilIdle();
      assert.deepEqual(engine.describe('label/later')?.searchAttributes, { KasiLabel: 'new' });
    } finally {
      await engine.shutdown();
    }
  });
});

describe('embedded engine: activations of different runs overlap', function () {
  it('a hundred workflows started at once finish their first task within a few turns of the event loop', async function () {
    const engine = await EmbeddedEngine.create({ workflowsPath, activities: { record: async (label: string) => label }, clock: 'virtual' });
    try {
      const ids = Array.from({ length: 100 }, (_, i) => `sleep/overlap-${i}`);
      for (const id of ids) engine.start({ workflowType: 'sleeper', workflowId: id, args: [HOUR] });
      // Each activation waits out one turn after it concludes (the SDK's unhandled-rejection
      // check): taken one at a time, a hundred would need a hundred turns; under an API's load a
      // turn takes milliseconds, and the engine fell seconds behind.
      // Done: started, one workflow task, its timer (five events), and out of the sandbox.
      const done = (id: string) => engine.describe(id)?.historyLength === 5 && engine.describe(id)?.inSandbox === false;
      let turns = 0;
      while (!ids.every(done) && turns < 200) {
        await new Promise((resolve) => setImmediate(resolve));
        turns++;
      }
      assert.ok(ids.every(done), 'every first task done');
      assert.ok(turns < 20, `${turns} turns of the event loop`);
    } finally {
      await engine.shutdown();
    }
  });
});

describe('embedded engine: loud failures', function () {
  let env: WorkflowEnv;
  const errors: string[] = [];

  before(async function () {
    const log = { debug() {}, info() {}, warn() {}, error: (_: unknown, message: string) => errors.push(message) };
    env = await createWorkflowEnv({ workflowsPath, activities: {}, engine: { log } });
  });
  after(async function () {
    await env?.teardown();
  });

  it('a plain Error in workflow code is a workflow task failure: logged and thrown, never a quiet failed workflow', async function () {
    await env.port.start({ workflowType: 'brokenTask', workflowId: 'broken/1', args: [] });
    await assert.rejects(env.result('broken/1'), (err: unknown) => err instanceof WorkflowTaskFailedError && /bug in workflow code/.test(err.message));
    assert.equal((await env.port.describe('broken/1'))?.status, 'RUNNING');
    assert.ok(errors.some((m) => /workflow task failed: brokenTask broken\/1/.test(m)), errors.join('\n'));
  });

  it('an unknown workflow type is a workflow task failure too', async function () {
    await env.port.start({ workflowType: 'noSuchWorkflow', workflowId: 'broken/2', args: [] });
    await assert.rejects(env.result('broken/2'), WorkflowTaskFailedError);
  });

  it('a workflow waiting on a signal that never comes is reported as blocked', async function () {
    await env.port.start({ workflowType: 'queryable', workflowId: 'blocked/1', args: [] });
    await assert.rejects(env.result('blocked/1'), /blocked with nothing scheduled/);
  });
});

describe('embedded engine: activities running at once', function () {
  it('no more than maxConcurrentActivities attempts run at once; the rest run in their turn, in order, and virtual time waits for them', async function () {
    let running = 0;
    let most = 0;
    const done: string[] = [];
    const record = async (label: string) => {
      running++;
      most = Math.max(most, running);
      await new Promise((resolve) => setTimeout(resolve, 5));
      running--;
      done.push(label);
      return label;
    };
    const engine = await EmbeddedEngine.create({ workflowsPath, activities: { record }, clock: 'virtual', maxConcurrentActivities: 3 });
    try {
      const ids = Array.from({ length: 12 }, (_, i) => `storm/${String(i).padStart(2, '0')}`);
      for (const id of ids) engine.start({ workflowType: 'checkoutLifetime', workflowId: id, args: [id, SECOND] });
      await engine.runUntilIdle();
      await engine.advance(SECOND);
      await engine.runUntilIdle();
      assert.equal(most, 3);
      assert.deepEqual(done, ids.map((id) => `${id}:expired`), 'each in its turn, in the order they fell due');
      assert.ok(ids.every((id) => engine.describe(id)?.status === 'COMPLETED'));
    } finally {
      await engine.shutdown();
    }
  });

  it('those waiting for a slot take it by priority key, as a server hands out its backlog: the lowest first, in order within a key', async function () {
    const keys: [string, number][] = [['first', 3], ['b', 0], ['c', 3], ['urgent', 1], ['late', 5], ['d', 0], ['sooner', 2]];
    const waiting = keys.slice(1).map(([label]) => `prioritized/${label}`);
    const done: string[] = [];
    const seen = new Map<string, number | undefined>();
    const engine: EmbeddedEngine = await EmbeddedEngine.create({
      workflowsPath,
      activities: {
        // The first holds the one slot until every other activity is scheduled and waits for it.
        record: async (label: string) => {
          for (let tries = 0; label === 'first' && !waiting.every((id) => engine.describe(id)!.historyLength >= 5); tries++) {
            if (tries === 400) throw new Error('the other workflows did not all schedule their activity within 2 s');
            await new Promise((resolve) => setTimeout(resolve, 5));
          }
          done.push(label);
          seen.set(label, Context.current().info.priority?.priorityKey);
          return label;
        },
      },
      clock: 'virtual',
      maxConcurrentActivities: 1,
    });
    try {
      for (const [label, key] of keys) engine.start({ workflowType: 'prioritized', workflowId: `prioritized/${label}`, args: [label, key] });
      await engine.runUntilIdle();
      assert.deepEqual(done, ['first', 'urgent', 'sooner', 'b', 'c', 'd', 'late']);
      const scheduled = engine.exportHistory('prioritized/urgent').events?.find((e) => e.activityTaskScheduledEventAttributes)?.activityTaskScheduledEventAttributes;
      assert.equal(scheduled?.priority?.priorityKey, 1, 'the priority is in the history, as a server writes it');
      assert.deepEqual([seen.get('urgent'), seen.get('late')], [1, 5], "and in the activity's info, as a worker gives it");
    } finally {
      await engine.shutdown();
    }
  });
});

describe('embedded engine: signals and continue-as-new', function () {
  it('a signal that waited its turn behind the task continuing the run as new goes to the new run, as the server gives it to the current one', async function () {
    const engine = await EmbeddedEngine.create({ workflowsPath, activities: { record: async (label: string) => label }, clock: 'virtual' });
    try {
      // The ledger continues as new once closed; its second run ends when closed again.
      engine.start({ workflowType: 'ledger', workflowId: 'ledger/can', args: [10, 2] });
      await engine.runUntilIdle();
      // The first close is delivered and the task that continues the run as new is queued behind
      // it; the second close waits its turn behind that task, and finds the first run closed.
      await engine.signal('ledger/can', 'closeLedger');
      await engine.signal('ledger/can', 'closeLedger');
      await engine.runUntilIdle();
      assert.equal(engine.describe('ledger/can')?.status, 'COMPLETED');
    } finally {
      await engine.shutdown();
    }
  });
});
