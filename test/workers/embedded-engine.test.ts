// The engine's own suite, on small fixture workflows, through the test facade: by default the
// embedded engine in virtual time, or Temporal's time-skipping server when
// KASI_TEMPORAL_TEST_SERVER is set. Every scenario's history is replayed on Temporal's real Core.
import assert from 'node:assert/strict';
import path from 'node:path';
import { ApplicationFailure, CancelledFailure, defineSearchAttributeKey } from '@temporalio/common';
import type { FixtureActivities } from '../fixtures/workflows/activities';
import { createWorkflowEnv } from '../support/workflow-env';
import type { WorkflowEnv } from '../support/workflow-env';
import { WorkflowTaskFailedError } from '../../orchestration/errors';
import { EmbeddedEngine } from '../../workers/embedded-engine/engine';

const workflowsPath = path.resolve(__dirname, '../fixtures/workflows/index.ts');
const SECOND = 1000;
const MINUTE = 60 * SECOND;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;

// Every scenario twice: as it runs, and with every workflow evicted from the sandbox after each of
// its tasks, so each next task first rebuilds it by replaying what it was given.
for (const [title, cache] of [
  ['', {}],
  [', evicting every workflow after each task', { maxCachedWorkflows: 0 }],
] as const) {
  describe(`embedded engine: workflow scenarios${title}`, function () {
    let env: WorkflowEnv;
    const calls: string[] = [];
    const flakyAttempts = new Map<string, number>();
    let declineUntil = Infinity;

    const activities = {
      async record(label) {
        calls.push(`record ${label}`);
        return label;
      },
      async charge(invoiceId, attempt) {
        calls.push(`charge ${invoiceId} #${attempt} at ${await env.now()}`);
        return attempt >= declineUntil ? 'paid' : 'declined';
      },
      async flaky(failTimes, errorType) {
        const attempt = (flakyAttempts.get(errorType) ?? 0) + 1;
        flakyAttempts.set(errorType, attempt);
        calls.push(`flaky ${errorType} attempt ${attempt} at ${await env.now()}`);
        if (attempt <= failTimes) throw ApplicationFailure.create({ message: `attempt ${attempt} failed`, type: errorType });
        return attempt;
      },
      hang() {
        return new Promise(() => {});
      },
      async cleanup(label) {
        calls.push(`cleanup ${label}`);
      },
    } satisfies FixtureActivities;

    before(async function () {
      env = await createWorkflowEnv({ workflowsPath, activities, engine: { hungActivityAfterMs: 50, ...cache } });
    });
    after(async function () {
      await env?.teardown();
    });
    beforeEach(function () {
      calls.length = 0;
      flakyAttempts.clear();
      declineUntil = Infinity;
    });

    let n = 0;
    const id = (kind: string): string => `${kind}/test_${++n}`;
    const start = (workflowType: string, workflowId: string, ...args: unknown[]) => env.port.start({ workflowType, workflowId, args });

    it('a timer fires after its duration in virtual time', async function () {
      const wf = id('sleeper');
      const t0 = await env.now();
      await start('sleeper', wf, 3 * DAY);
      assert.equal(await env.result(wf), `slept ${3 * DAY}`);
      assert.equal((await env.now()) - t0, 3 * DAY);
      await env.replay(wf);
    });

    it('condition with a timeout returns false when the timeout wins', async function () {
      const wf = id('poke');
      await start('waitForPoke', wf, HOUR);
      assert.equal(await env.result(wf), false);
      await env.replay(wf);
    });

    it('a signal arriving mid-sleep wakes the condition at once', async function () {
      const wf = id('poke');
      const t0 = await env.now();
      await start('waitForPoke', wf, HOUR);
      await env.sleep(10 * MINUTE);
      await env.port.signal(wf, 'poke');
      assert.equal(await env.result(wf), true);
      assert.equal((await env.now()) - t0, 10 * MINUTE);
      await env.replay(wf);
    });

    it('a signal and a timer due in the same instant: the signal is handled first, as Core orders jobs', async function () {
      const wf = id('same');
      await start('sameInstant', wf, HOUR);
      await env.sleep(HOUR - 1);
      // Both the signal and the timer fall due in the next millisecond's activation.
      await env.port.signal(wf, 'poke');
      assert.equal(await env.result(wf), 'signal first');
      await env.replay(wf);
    });

    it('the checkout-lifetime shape: paid in time, then the activity runs', async function () {
      const wf = id('checkout');
      await start('checkoutLifetime', wf, 'chk_a', 30 * MINUTE);
      await env.sleep(5 * MINUTE);
      assert.equal(await env.port.query(wf, 'state'), 'open');
      await env.port.signal(wf, 'paid', ['pay_1']);
      assert.equal(await env.result(wf), 'paid');
      assert.deepEqual(calls, ['record chk_a:paid']);
      await env.replay(wf);
    });

    it('retries a failing activity with exponential backoff until it succeeds', async function () {
      const wf = id('retry');
      const t0 = await env.now();
      await start('retrying', wf, 3, 'ProcessorUnavailable', 10);
      assert.equal(await env.result(wf), 'succeeded on attempt 4');
      // 1 s, 2 s, 4 s between the attempts.
      const times = calls.map((c) => Number(c.split(' at ')[1]) - t0);
      assert.deepEqual(times, [0, 1 * SECOND, 3 * SECOND, 7 * SECOND]);
      await env.replay(wf);
    });

    it('a non-retryable error type stops the retries at once', async function () {
      const wf = id('retry');
      await start('retrying', wf, 5, 'CardDeclined', 10);
      assert.equal(await env.result(wf), 'failed: CardDeclined (NON_RETRYABLE_FAILURE)');
      assert.equal(calls.length, 1);
      await env.replay(wf);
    });

    it('exhausted retries reach the workflow with the retry state', async function () {
      const wf = id('retry');
      await start('retrying', wf, 5, 'ProcessorUnavailable', 3);
      assert.equal(await env.result(wf), 'failed: ProcessorUnavailable (MAXIMUM_ATTEMPTS_REACHED)');
      assert.equal(calls.length, 3);
      await env.replay(wf);
    });

    it('a hung activity times out after its start-to-close timeout and is retried', async function () {
      const wf = id('timeout');
      const t0 = await env.now();
      await start('timingOut', wf);
      assert.equal(await env.result(wf), 'timed out: TimeoutFailure (MAXIMUM_ATTEMPTS_REACHED)');
      // Two attempts of 10 s with 1 s of backoff between them.
      assert.equal((await env.now()) - t0, 21 * SECOND);
      await env.replay(wf);
    });

    it('cancellation runs the cleanup and ends the workflow cancelled', async function () {
      const wf = id('cancel');
      await start('cancellable', wf, 'chk_b');
      await env.sleep(HOUR);
      await env.port.cancel(wf);
      await assert.rejects(env.result(wf), (err: unknown) => err instanceof CancelledFailure || (err as Error).cause instanceof CancelledFailure);
      assert.deepEqual(calls, ['cleanup chk_b']);
      assert.equal((await env.port.describe(wf))?.status, 'CANCELLED');
      await env.replay(wf);
    });

    it('continue-as-new carries state into the next run', async function () {
      const wf = id('counter');
      await start('counter', wf, 0, 7, 3);
      assert.equal(await env.result(wf), 7);
      await env.replay(wf);
    });

    it('child workflows run and return to their parent', async function () {
      const wf = id('parent');
      await start('parent', wf, ['ada', 'bo']);
      assert.deepEqual(await env.result(wf), ['hello ada', 'hello bo']);
      await env.replay(wf);
      await env.replay(`${wf}/child-ada`);
    });

    it("a child's failure reaches the parent as a ChildWorkflowFailure", async function () {
      const wf = id('parent');
      await start('failingChildParent', wf);
      assert.equal(await env.result(wf), 'child failed: card expired');
      await env.replay(wf);
    });

    it('queries read workflow state without changing history', async function () {
      const wf = id('query');
      await start('queryable', wf);
      await env.sleep(MINUTE);
      assert.equal(await env.port.query(wf, 'state'), 'waiting');
      const before = (await env.history(wf)).events?.length;
      await env.port.signal(wf, 'poke');
      await env.sleep(1);
      assert.equal(await env.port.query(wf, 'state'), 'poked');
      assert.equal(await env.result(wf), 'poked');
      assert.ok(before !== undefined && before > 0);
      await env.replay(wf);
    });

    it('Math.random and uuid4 draw from the seed Core derives, so replay agrees', async function () {
      const wf = id('seeded');
      await start('seeded', wf);
      await env.result(wf);
      await env.replay(wf);
    });

    it('each workflow in the shared sandbox sees only its own globals', async function () {
      const [a, b, later] = [id('globals'), id('globals'), id('globals')];
      // Both start before either runs on, so their tasks interleave in the one context.
      await Promise.all([start('globalsKeeper', a, 'A'), start('globalsKeeper', b, 'B')]);
      assert.equal(await env.result(a), 'undefined undefined object | A A undefined');
      assert.equal(await env.result(b), 'undefined undefined object | B B undefined');
      await start('globalsKeeper', later, 'C');
      assert.equal(await env.result(later), 'undefined undefined object | C C undefined');
    });

    it('a repeated start with the same id is harmless', async function () {
      const wf = id('checkout');
      const first = await start('checkoutLifetime', wf, 'chk_c', 30 * MINUTE);
      const second = await start('checkoutLifetime', wf, 'chk_c', 30 * MINUTE);
      assert.equal(first.started, true);
      assert.equal(second.started, false);
      assert.equal(second.runId, first.runId);
      await env.result(wf);
      const third = await start('checkoutLifetime', wf, 'chk_c', 30 * MINUTE);
      assert.equal(third.started, false, 'a closed workflow is not run again under reject-duplicate');
      assert.deepEqual(calls, ['record chk_c:expired']);
    });

    it('signal-with-start starts the workflow with the signal in its first task', async function () {
      const wf = id('checkout');
      await env.port.signalWithStart({ workflowType: 'checkoutLifetime', workflowId: wf, args: ['chk_d', 30 * MINUTE] }, 'paid', ['pay_2']);
      assert.equal(await env.result(wf), 'paid');
      await env.replay(wf);
    });

    it('a 14-day dunning ladder (retries on days 1, 3, 7, 14; cancelled on day 5) in well under a second', async function () {
      const wf = id('invoice');
      const wall = Date.now();
      const t0 = await env.now();
      await start('dunning', wf, 'in_1');
      await env.sleep(5 * DAY);
      await env.port.signal(wf, 'cancelDunning');
      assert.equal(await env.result(wf), 'cancelled before retry 3');
      const days = calls.map((c) => (Number(c.split(' at ')[1]) - t0) / DAY);
      assert.deepEqual(days, [0, 1, 3]);
      if (env.kind === 'embedded') assert.ok(Date.now() - wall < 1000, `took ${Date.now() - wall} ms`);
      await env.replay(wf);

      const unpaid = id('invoice');
      const t1 = await env.now();
      calls.length = 0;
      await start('dunning', unpaid, 'in_2');
      assert.equal(await env.result(unpaid), 'uncollectible');
      assert.deepEqual(
        calls.map((c) => (Number(c.split(' at ')[1]) - t1) / DAY),
        [0, 1, 3, 7, 14],
      );
      await env.replay(unpaid);
    });
  });
}
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
    if (process.env.KASI_TEMPORAL_TEST_SERVER) this.skip();
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
