// The engine's scenario suite, on small fixture workflows, through the test facade, for either
// engine: embedded-engine.test.ts runs it on the embedded engine, and
// workflow-scenarios.time-skipping.test.ts on Temporal's time-skipping test server, so each
// scenario is checked against the real thing. Every scenario's history is replayed on Core.
//
// Times: the embedded engine's virtual clock stands still while a task or an activity runs, so
// its times are exact. The server's clock runs on in real time between skips (and does not skip
// while an activity attempt is outstanding), so there a time is checked to be no earlier than
// expected and at most SERVER_SLACK_MS later; the embedded engine still checks it exactly.
import assert from 'node:assert/strict';
import path from 'node:path';
import { Context } from '@temporalio/activity';
import { ApplicationFailure, CancelledFailure } from '@temporalio/common';
import { tsToMs } from '@temporalio/common/lib/time';
import { temporal } from '@temporalio/proto';
import type { FixtureActivities } from '../fixtures/workflows/activities';
import { eventually } from '../support/eventually';
import { createWorkflowEnv, skipWithoutTestServer } from '../support/workflow-env';
import type { WorkflowEngineKind, WorkflowEnv } from '../support/workflow-env';
import type { EngineOptions } from '../../workers/embedded-engine/engine';
import { WorkflowClosedError, WorkflowNotFoundError, WorkflowUpdateRejectedError } from '../../orchestration/errors';

export const fixtureWorkflowsPath = path.resolve(__dirname, '../fixtures/workflows/index.ts');
const SECOND = 1000;
const MINUTE = 60 * SECOND;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;
/** How much later than due the server may record or run something on a busy machine. */
const SERVER_SLACK_MS = 2000;
const { EventType } = temporal.api.enums.v1;

/** The history's event types, by name without the prefix: ['WORKFLOW_EXECUTION_STARTED', ...]. */
function eventNames(history: temporal.api.history.v1.IHistory): string[] {
  return (history.events ?? []).map((e) => EventType[e.eventType ?? 0]!.replace('EVENT_TYPE_', ''));
}

/** When the history's events of one type happened, in order. */
function eventTimes(history: temporal.api.history.v1.IHistory, type: temporal.api.enums.v1.EventType): number[] {
  return (history.events ?? []).filter((e) => e.eventType === type).map((e) => tsToMs(e.eventTime));
}

export function workflowScenarios(title: string, on: WorkflowEngineKind, engine?: Partial<EngineOptions>): void {
  describe(title, function () {
    let env: WorkflowEnv;
    const calls: string[] = [];

    const activities = {
      async record(label) {
        calls.push(`record ${label}`);
        return label;
      },
      async charge(invoiceId, attempt) {
        calls.push(`charge ${invoiceId} #${attempt} at ${await env.now()}`);
        return 'declined';
      },
      async flaky(failTimes, errorType) {
        // The attempt number as the engine counts it, the same on both.
        const { attempt } = Context.current().info;
        calls.push(`flaky ${errorType} attempt ${attempt} at ${await env.now()}`);
        if (attempt <= failTimes) throw ApplicationFailure.create({ message: `attempt ${attempt} failed`, type: errorType });
        return attempt;
      },
      async hang() {
        calls.push('hang');
        const context = Context.current();
        // The answer to a heartbeat is how an attempt on a server learns it was cancelled; until it
        // ends, the server's clock does not skip.
        const beat = setInterval(() => context.heartbeat(), 100);
        try {
          await context.cancelled;
        } finally {
          clearInterval(beat);
        }
      },
      async cleanup(label) {
        calls.push(`cleanup ${label}`);
      },
    } satisfies FixtureActivities;

    /** Exact on the embedded engine; on the server no earlier, and at most SERVER_SLACK_MS later. */
    const assertTimes = (actual: number[], expected: number[]): void => {
      if (env.kind === 'embedded') return assert.deepEqual(actual, expected);
      assert.equal(actual.length, expected.length, `${actual} against ${expected}`);
      actual.forEach((t, i) => assert.ok(t >= expected[i]! && t <= expected[i]! + SERVER_SLACK_MS, `${actual} against ${expected}`));
    };
    /** Times the calls recorded (`... at <ms>`), from t0. */
    const callTimes = (t0: number): number[] => calls.map((c) => Number(c.split(' at ')[1]) - t0);

    before(async function () {
      if (on === 'time-skipping-server') skipWithoutTestServer(this);
      env = await createWorkflowEnv({ workflowsPath: fixtureWorkflowsPath, activities, on, engine });
    });
    after(async function () {
      await env?.teardown();
    });
    beforeEach(function () {
      calls.length = 0;
    });

    let n = 0;
    const id = (kind: string): string => `${kind}/test_${++n}`;
    const start = (workflowType: string, workflowId: string, ...args: unknown[]) => env.port.start({ workflowType, workflowId, args });

    it('a timer fires after its duration, in skipped time', async function () {
      const wf = id('sleeper');
      await start('sleeper', wf, 3 * DAY);
      assert.equal(await env.result(wf), `slept ${3 * DAY}`);
      const history = await env.history(wf);
      const [started] = eventTimes(history, EventType.EVENT_TYPE_TIMER_STARTED);
      assertTimes(eventTimes(history, EventType.EVENT_TYPE_TIMER_FIRED), [started! + 3 * DAY]);
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
      await start('waitForPoke', wf, HOUR);
      await env.sleep(10 * MINUTE);
      await env.port.signal(wf, 'poke');
      assert.equal(await env.result(wf), true);
      const history = await env.history(wf);
      const [startedAt] = eventTimes(history, EventType.EVENT_TYPE_WORKFLOW_EXECUTION_STARTED);
      assertTimes(eventTimes(history, EventType.EVENT_TYPE_WORKFLOW_EXECUTION_COMPLETED), [startedAt! + 10 * MINUTE]);
      await env.replay(wf);
    });

    it('a signal and a timer due in the same instant: the signal is handled first, as Core orders jobs', async function () {
      // Only a clock that stands still between calls can deliver both in one activation: the
      // server's runs on in real time after a skip. Core's order is still checked on the server's
      // side: the replay below has Core itself take this activation.
      if (env.kind !== 'embedded') this.skip();
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
      assertTimes(callTimes(t0), [0, 1 * SECOND, 3 * SECOND, 7 * SECOND]);
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
      await start('timingOut', wf);
      assert.equal(await env.result(wf), 'timed out: TimeoutFailure (MAXIMUM_ATTEMPTS_REACHED)');
      assert.deepEqual(calls, ['hang', 'hang']);
      // Two attempts of 2 s with 1 s of backoff between them.
      const history = await env.history(wf);
      const [scheduled] = eventTimes(history, EventType.EVENT_TYPE_ACTIVITY_TASK_SCHEDULED);
      assertTimes(eventTimes(history, EventType.EVENT_TYPE_ACTIVITY_TASK_TIMED_OUT), [scheduled! + 5 * SECOND]);
      await env.replay(wf);
    });

    it('cancellation runs the cleanup and ends the workflow cancelled', async function () {
      const wf = id('cancel');
      await start('cancellable', wf, 'chk_b');
      // Cancelled while it waits on both its timer and its activity.
      await eventually(async () => calls, (c) => c.includes('hang'));
      await env.port.cancel(wf);
      await assert.rejects(env.result(wf), (err: unknown) => err instanceof CancelledFailure || (err as Error).cause instanceof CancelledFailure);
      assert.deepEqual(calls, ['hang', 'cleanup chk_b']);
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
      assert.equal(await env.port.query(wf, 'state'), 'waiting');
      assert.equal((await env.history(wf)).events?.length, before);
      await env.port.signal(wf, 'poke');
      await env.sleep(1);
      // A server may answer a query sent while the signal's task is still running from the state before it.
      assert.equal(await eventually(() => env.port.query(wf, 'state'), (state) => state === 'poked'), 'poked');
      assert.equal(await env.result(wf), 'poked');
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

    it('signal-with-start starts the workflow with the signal in its first task; a closed one again only where reuse is allowed', async function () {
      const wf = id('checkout');
      const start = { workflowType: 'checkoutLifetime', workflowId: wf, args: ['chk_d', 30 * MINUTE] };
      const first = await env.port.signalWithStart(start, 'paid', ['pay_2']);
      assert.equal(await env.result(wf), 'paid');
      await env.replay(wf);
      assert.deepEqual(await env.port.signalWithStart(start, 'paid', ['pay_3']), first, 'refused under reject-duplicate');
      const again = await env.port.signalWithStart({ ...start, idReuse: 'allow-duplicate' }, 'paid', ['pay_3']);
      assert.notEqual(again.runId, first.runId);
      assert.equal(await env.result(wf), 'paid');
      assert.deepEqual(calls, ['record chk_d:paid', 'record chk_d:paid']);
      await env.replay(wf);
    });

    it('an accepted update returns its result and changes state; its history replays on Core', async function () {
      const wf = id('ledger');
      await start('ledger', wf, 10, 1);
      assert.equal(await env.port.update(wf, 'deposit', [5]), 15);
      assert.equal(await env.port.query(wf, 'balance'), 15);
      const events = eventNames(await env.history(wf));
      const accepted = events.indexOf('WORKFLOW_EXECUTION_UPDATE_ACCEPTED');
      // Accepted and completed in one task: both follow its WorkflowTaskCompleted.
      assert.deepEqual(events.slice(accepted - 1, accepted + 2), ['WORKFLOW_TASK_COMPLETED', 'WORKFLOW_EXECUTION_UPDATE_ACCEPTED', 'WORKFLOW_EXECUTION_UPDATE_COMPLETED']);
      await env.port.signal(wf, 'closeLedger');
      assert.equal(await env.result(wf), 15);
      await env.replay(wf);
    });

    it("a validator's rejection leaves nothing in history and the workflow as it was", async function () {
      const wf = id('ledger');
      await start('ledger', wf, 10, 1);
      await env.sleep(SECOND);
      const before = await env.history(wf);
      await assert.rejects(env.port.update(wf, 'deposit', [-3]), (err: unknown) => err instanceof WorkflowUpdateRejectedError && /must be positive, not -3/.test(err.cause.message));
      const after = await env.history(wf);
      assert.ok(!eventNames(after).some((e) => e.includes('UPDATE')), eventNames(after).join(' '));
      // The embedded engine's clock stands still: its history is exactly as it was.
      if (env.kind === 'embedded') assert.deepEqual(eventNames(after), eventNames(before));
      assert.equal(await env.port.query(wf, 'balance'), 10);
      // The workflow takes the next update as if the rejected one never came.
      assert.equal(await env.port.update(wf, 'deposit', [1]), 11);
      await env.port.signal(wf, 'closeLedger');
      assert.equal(await env.result(wf), 11);
      await env.replay(wf);
    });

    it("a handler's failure completes the accepted update with it", async function () {
      const wf = id('ledger');
      await start('ledger', wf, 10, 1);
      await assert.rejects(env.port.update(wf, 'deposit', [2_000_000]), (err: unknown) => err instanceof WorkflowUpdateRejectedError && /over the limit/.test(err.cause.message));
      const events = eventNames(await env.history(wf));
      assert.deepEqual(events.filter((e) => e.includes('UPDATE')), ['WORKFLOW_EXECUTION_UPDATE_ACCEPTED', 'WORKFLOW_EXECUTION_UPDATE_COMPLETED']);
      await env.port.signal(wf, 'closeLedger');
      assert.equal(await env.result(wf), 10);
      await env.replay(wf);
    });

    it('an update that waits for a signal completes when it comes; the workflow waits for its handlers', async function () {
      const wf = id('ledger');
      await start('ledger', wf, 10, 1);
      const outcome = env.port.update(wf, 'awaitPoke');
      await env.sleep(MINUTE);
      // Closing now does not cut the update short: the workflow waits for allHandlersFinished.
      await env.port.signal(wf, 'closeLedger');
      await env.sleep(MINUTE);
      assert.equal((await env.port.describe(wf))?.status, 'RUNNING');
      assert.equal(await env.port.update(wf, 'deposit', [2]), 12);
      await env.port.signal(wf, 'poke');
      assert.equal(await outcome, 'poked at 12');
      assert.equal(await env.result(wf), 12);
      const events = eventNames(await env.history(wf)).filter((e) => e.includes('UPDATE') || e.includes('SIGNALED'));
      assert.deepEqual(events, [
        'WORKFLOW_EXECUTION_UPDATE_ACCEPTED',
        'WORKFLOW_EXECUTION_SIGNALED',
        'WORKFLOW_EXECUTION_UPDATE_ACCEPTED',
        'WORKFLOW_EXECUTION_UPDATE_COMPLETED',
        'WORKFLOW_EXECUTION_SIGNALED',
        'WORKFLOW_EXECUTION_UPDATE_COMPLETED',
      ]);
      await env.replay(wf);
    });

    it('an update on a closed workflow or a missing one fails with the port’s errors', async function () {
      const wf = id('ledger');
      await start('ledger', wf, 10, 1);
      await env.port.signal(wf, 'closeLedger');
      assert.equal(await env.result(wf), 10);
      await assert.rejects(env.port.update(wf, 'deposit', [1]), WorkflowClosedError);
      await assert.rejects(env.port.update(id('ledger'), 'deposit', [1]), WorkflowNotFoundError);
    });

    it('updates before and after continue-as-new: each run takes its own, the balance carries over', async function () {
      const wf = id('ledger');
      const first = await start('ledger', wf, 0, 2);
      assert.equal(await env.port.update(wf, 'deposit', [5]), 5);
      await env.port.signal(wf, 'closeLedger');
      // The next run takes updates once it has started.
      await eventually(() => env.port.describe(wf), (d) => d?.runId !== first.runId && d?.status === 'RUNNING');
      assert.equal(await env.port.update(wf, 'deposit', [1]), 6);
      await env.port.signal(wf, 'closeLedger');
      assert.equal(await env.result(wf), 6);
      await env.replay(wf);
    });

    it('a 14-day dunning ladder (retries on days 1, 3, 7, 14; cancelled on day 5) in seconds', async function () {
      const wf = id('invoice');
      const wall = Date.now();
      const t0 = await env.now();
      await start('dunning', wf, 'in_1');
      await env.sleep(5 * DAY);
      await env.port.signal(wf, 'cancelDunning');
      assert.equal(await env.result(wf), 'cancelled before retry 3');
      assertTimes(callTimes(t0), [0, 1 * DAY, 3 * DAY]);
      if (env.kind === 'embedded') assert.ok(Date.now() - wall < 1000, `took ${Date.now() - wall} ms`);
      await env.replay(wf);

      const unpaid = id('invoice');
      const t1 = await env.now();
      calls.length = 0;
      await start('dunning', unpaid, 'in_2');
      assert.equal(await env.result(unpaid), 'uncollectible');
      assertTimes(callTimes(t1), [0, 1 * DAY, 3 * DAY, 7 * DAY, 14 * DAY]);
      await env.replay(unpaid);
    });
  });
}
