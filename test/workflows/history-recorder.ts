// Records the histories of history-scenarios.ts on Temporal's time-skipping test server, with the
// service's workflow bundle (workers/service.ts's WORKFLOWS_PATH) and stand-in activities, and
// writes each as History proto JSON (historyToJSON, what historyFromJSON and
// Worker.runReplayHistory read) to test/histories/<type>/<name>.json. Run by
// scripts/record-histories.ts (`npm run histories:record`); see test/histories/README.md.
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { Context } from '@temporalio/activity';
import { ApplicationFailure } from '@temporalio/common';
import { historyToJSON } from '@temporalio/common/lib/proto-utils';
import { temporal } from '@temporalio/proto';
import type { AccountLimitActivities } from '../../activities/account-limits';
import type { CardActivities } from '../../activities/cards';
import type { CheckoutActivities } from '../../activities/checkouts';
import type { InvoiceActivities } from '../../activities/invoices';
import type { RefundActivities } from '../../activities/refunds';
import type { TestClockActivities } from '../../activities/test-clocks';
import type { SubscriptionActivities } from '../../activities/subscriptions';
import type { WebhookActivities } from '../../activities/webhook-delivery';
import { colomboMonth } from '../../domain/time';
import { WORKFLOWS_PATH } from '../../workers/service';
import { createWorkflowEnv, type WorkflowEnv } from '../support/workflow-env';
import { CONTINUED_AS_NEW, HISTORY_SCENARIOS, historyFile, workflowIdOf, type Driver, type HistoryScenario, type Script } from './history-scenarios';

export const HISTORIES_DIR = path.resolve(__dirname, '../histories');

const { EventType } = temporal.api.enums.v1;

/** Events a workflow task may leave after WorkflowTaskCompleted while the workflow then waits. */
const AFTER_TASK = new Set([
  EventType.EVENT_TYPE_TIMER_STARTED,
  EventType.EVENT_TYPE_TIMER_CANCELED,
  EventType.EVENT_TYPE_MARKER_RECORDED,
  EventType.EVENT_TYPE_UPSERT_WORKFLOW_SEARCH_ATTRIBUTES,
  EventType.EVENT_TYPE_WORKFLOW_EXECUTION_UPDATE_ACCEPTED,
  EventType.EVENT_TYPE_WORKFLOW_EXECUTION_UPDATE_COMPLETED,
]);

/** The workflow has closed, or its last task is done and nothing (a task, an activity) is outstanding. */
function waits(history: temporal.api.history.v1.IHistory): boolean {
  const events = history.events ?? [];
  if (events.at(-1)?.eventType === EventType.EVENT_TYPE_WORKFLOW_EXECUTION_COMPLETED) return true;
  for (let i = events.length - 1; i >= 0; i--) {
    const type = events[i]!.eventType;
    if (type === EventType.EVENT_TYPE_WORKFLOW_TASK_COMPLETED) return true;
    if (type == null || !AFTER_TASK.has(type)) return false;
  }
  return false;
}

const IDLE_LIMIT_MS = 10_000;

/** The stand-in activities: each answers from the script of the object it is called for. */
function standIns(scripts: Map<string, { script: Script; left: Script; attempts: number }>) {
  const of = (id: string, activity: string) => {
    const entry = scripts.get(id);
    // Non-retryable: the workflow fails and the recording says why, instead of retrying for ever.
    if (entry === undefined) throw ApplicationFailure.nonRetryable(`${activity}: no script for ${id}`, 'NoScript');
    return entry;
  };
  const checkouts = {
    async settleAttempt(checkoutId: string, attempt: number) {
      const answer = of(checkoutId, 'settleAttempt').left.settle?.shift();
      if (answer === undefined) throw ApplicationFailure.nonRetryable(`settleAttempt(${checkoutId}, ${attempt}) was not scripted`, 'NoScript');
      return answer;
    },
    async closeCheckout(checkoutId: string) {
      const entry = of(checkoutId, 'closeCheckout');
      const answers = entry.left.close;
      const answer = Array.isArray(answers) ? answers.shift() : answers;
      if (answer === undefined) throw ApplicationFailure.nonRetryable(`closeCheckout(${checkoutId}) was not scripted`, 'NoScript');
      if (!Array.isArray(answers)) delete entry.left.close;
      return answer;
    },
  } satisfies CheckoutActivities;
  const webhooks = {
    async attemptWebhookDelivery(deliveryId: string, _options?: { manual?: boolean }) {
      const entry = of(deliveryId, 'attemptWebhookDelivery');
      const delivered = entry.left.answers?.shift();
      if (delivered === undefined) throw ApplicationFailure.nonRetryable(`attemptWebhookDelivery(${deliveryId}) was not scripted`, 'NoScript');
      entry.attempts += 1;
      return { delivered, attemptNumber: (entry.script.attemptsBefore ?? 0) + entry.attempts };
    },
    async failWebhookDelivery(deliveryId: string) {
      of(deliveryId, 'failWebhookDelivery');
    },
  } satisfies WebhookActivities;
  const cards = {
    async settleCharge(paymentId: string) {
      const answer = of(paymentId, 'settleCharge').left.charge?.shift();
      if (answer === undefined) throw ApplicationFailure.nonRetryable(`settleCharge(${paymentId}) was not scripted`, 'NoScript');
      return answer;
    },
    async sendCardExpiringNotices(sweepAt: string) {
      const sent = of('card-expiring', 'sendCardExpiringNotices').left.expiring?.shift();
      if (sent === undefined) throw ApplicationFailure.nonRetryable(`sendCardExpiringNotices(${sweepAt}) was not scripted`, 'NoScript');
      return sent;
    },
  } satisfies CardActivities;
  const accountLimits = {
    async sendLimitResets(monthStart: string) {
      assert.equal(colomboMonth(new Date(monthStart)).start.toISOString(), monthStart, 'a month\'s start, midnight on the 1st in Colombo');
      const sent = of('limit-reset', 'sendLimitResets').left.resets?.shift();
      if (sent === undefined) throw ApplicationFailure.nonRetryable(`sendLimitResets(${monthStart}) was not scripted`, 'NoScript');
      return sent;
    },
  } satisfies AccountLimitActivities;
  const refundAnswer = (refundId: string, activity: string) => {
    const answer = of(refundId, activity).left.refund?.shift();
    if (answer === undefined) throw ApplicationFailure.nonRetryable(`${activity}(${refundId}) was not scripted`, 'NoScript');
    if (typeof answer === 'string') return { status: answer };
    // When the processor expects to decide, from the server's time of the question.
    const askAt = answer.pendingMs === null ? null : new Date(Context.current().info.currentAttemptScheduledTimestampMs + answer.pendingMs).toISOString();
    return { status: 'pending' as const, askAt };
  };
  const refunds = {
    submitRefund: async (refundId: string) => refundAnswer(refundId, 'submitRefund'),
    settleRefund: async (refundId: string) => refundAnswer(refundId, 'settleRefund'),
  } satisfies RefundActivities;
  const clocks = {
    async stepTestClock(clockId: string) {
      const step = of(clockId, 'stepTestClock').left.clock?.shift();
      if (step === undefined) throw ApplicationFailure.nonRetryable(`stepTestClock(${clockId}) was not scripted`, 'NoScript');
      return step;
    },
    wakeClockWaiters: async () => undefined,
    // A workflow on a test clock (workflows/billing-time.ts): its script goes by its workflow id.
    async waitOnClock(wait: { clockId: string; workflowId: string; dueAt: number }) {
      const clockTime = of(wait.workflowId, 'waitOnClock').left.clockTime?.shift();
      if (clockTime === undefined) throw ApplicationFailure.nonRetryable(`waitOnClock(${wait.workflowId}, ${new Date(wait.dueAt).toISOString()}) was not scripted`, 'NoScript');
      return clockTime;
    },
    async leaveClock(workflowId: string) {
      of(workflowId, 'leaveClock');
    },
  } satisfies TestClockActivities;
  const subscriptions = {
    async stepSubscription(subscriptionId: string) {
      const next = of(subscriptionId, 'stepSubscription').left.step?.shift();
      if (next === undefined) throw ApplicationFailure.nonRetryable(`stepSubscription(${subscriptionId}) was not scripted`, 'NoScript');
      return next;
    },
  } satisfies SubscriptionActivities;
  const invoices = {
    async chargeInvoice(invoiceId: string) {
      const step = of(invoiceId, 'chargeInvoice').left.collect?.shift();
      if (step === undefined) throw ApplicationFailure.nonRetryable(`chargeInvoice(${invoiceId}) was not scripted`, 'NoScript');
      return step;
    },
    async noticeInvoice(invoiceId: string) {
      const open = of(invoiceId, 'noticeInvoice').left.notice?.shift();
      if (open === undefined) throw ApplicationFailure.nonRetryable(`noticeInvoice(${invoiceId}) was not scripted`, 'NoScript');
      return open;
    },
  } satisfies InvoiceActivities;
  return { ...checkouts, ...webhooks, ...cards, ...accountLimits, ...refunds, ...clocks, ...subscriptions, ...invoices };
}

/** A copy of the history as JSON, with the recording machine's worker identities made neutral. */
function historyJson(history: temporal.api.history.v1.IHistory): string {
  const json = JSON.parse(historyToJSON(history)) as unknown;
  const neutral = (value: unknown): unknown => {
    if (Array.isArray(value)) return value.map(neutral);
    if (value === null || typeof value !== 'object') return value;
    return Object.fromEntries(Object.entries(value).map(([key, inner]) => [key, key === 'identity' ? 'kasi-history-recorder' : neutral(inner)]));
  };
  return `${JSON.stringify(neutral(json), null, 2)}\n`;
}

async function record(env: WorkflowEnv, scenario: HistoryScenario, scripts: Parameters<typeof standIns>[0]): Promise<temporal.api.history.v1.IHistory> {
  const workflowId = workflowIdOf(historyFile(scenario));
  // A script made from the server's time gets the instant the recording begins, as drive() does.
  const at = await env.now();
  const script = typeof scenario.script === 'function' ? scenario.script(at) : scenario.script;
  const left = structuredClone(script);
  const entry = { script, left, attempts: 0 };
  scripts.set(scenario.objectId, entry);
  // waitOnClock and leaveClock know the workflow by its id alone.
  scripts.set(workflowId, entry);
  let firstRunId: string | undefined;
  const driver: Driver = {
    now: () => env.now(),
    async start(start) {
      const { started, runId } = await env.port.start({ ...start, workflowId });
      assert.ok(started, `${workflowId} had already run on this server`);
      firstRunId ??= runId;
    },
    signal: (name, args) => env.port.signal(workflowId, name, args),
    update: (name, args) => env.port.update(workflowId, name, args),
    async idle() {
      const until = Date.now() + IDLE_LIMIT_MS;
      while (!waits(await env.history(workflowId))) {
        if (Date.now() > until) throw new Error(`${workflowId} still busy after ${IDLE_LIMIT_MS} ms`);
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
    },
  };
  await scenario.drive(driver, scenario.objectId, at);
  let history: temporal.api.history.v1.IHistory;
  if (scenario.result === CONTINUED_AS_NEW) {
    history = await firstRunContinued(env, workflowId, firstRunId!);
    await driver.idle();
    // The next run would wait for ever (and call its stand-ins as later recordings skip time).
    await env.port.cancel(workflowId);
  } else {
    const result = await env.result(workflowId);
    assert.deepEqual(result, scenario.result, `${workflowId}: the workflow's result`);
    history = await env.history(workflowId);
  }
  const unused = Object.entries(left).filter(([key, value]) => key !== 'attemptsBefore' && (Array.isArray(value) ? value.length > 0 : value !== undefined));
  assert.deepEqual(unused, [], `${workflowId}: stand-in answers the workflow never asked for`);
  // A history replays only from a clean run: a failed task or activity in it means the scenario
  // went wrong, not a path worth keeping.
  const failures = (history.events ?? []).filter((e) => e.eventType === EventType.EVENT_TYPE_WORKFLOW_TASK_FAILED || e.eventType === EventType.EVENT_TYPE_ACTIVITY_TASK_FAILED);
  assert.equal(failures.length, 0, `${workflowId}: the history has failed tasks`);
  return history;
}

/** The first run's history once it has continued as new, skipping time a day at a time (a month at most). */
async function firstRunContinued(env: WorkflowEnv, workflowId: string, runId: string): Promise<temporal.api.history.v1.IHistory> {
  for (let day = 0; day <= 32; day++) {
    const history = await env.history(workflowId, runId);
    if (history.events?.at(-1)?.eventType === EventType.EVENT_TYPE_WORKFLOW_EXECUTION_CONTINUED_AS_NEW) return history;
    await env.sleep(24 * 60 * 60 * 1000);
  }
  throw new Error(`${workflowId}: the first run did not continue as new within a month`);
}

export interface RecordOptions {
  /** `checkoutLifetime` or `checkoutLifetime/paid-first-attempt`: only these (all by default). */
  only?: string[];
  /** Overwrite histories already recorded (by default only missing ones are recorded). */
  overwrite?: boolean;
  /** Where to write (test/histories/ by default). */
  dir?: string;
  /** Told of each scenario as it is written or left alone. */
  onScenario?(scenario: HistoryScenario, outcome: 'recorded' | 'kept', file: string): void;
}

/**
 * Records the selected scenarios one after another on one test server (each skips the server's
 * shared clock, so they do not overlap). Needs the server binary (scripts/install-temporal.sh).
 */
export async function recordHistories(options: RecordOptions = {}): Promise<void> {
  const dir = options.dir ?? HISTORIES_DIR;
  const selected = HISTORY_SCENARIOS.filter((s) => options.only === undefined || options.only.some((o) => o === s.workflowType || o === workflowIdOf(historyFile(s))));
  if (options.only !== undefined) {
    const unknown = options.only.filter((o) => !HISTORY_SCENARIOS.some((s) => o === s.workflowType || o === workflowIdOf(historyFile(s))));
    if (unknown.length > 0) throw new Error(`no such scenario or workflow type: ${unknown.join(', ')}`);
  }
  const todo = selected.filter((s) => {
    const file = path.join(dir, historyFile(s));
    if (options.overwrite || !existsSync(file)) return true;
    options.onScenario?.(s, 'kept', file);
    return false;
  });
  if (todo.length === 0) return;
  const scripts = new Map<string, { script: Script; left: Script; attempts: number }>();
  const env = await createWorkflowEnv({ workflowsPath: WORKFLOWS_PATH, activities: standIns(scripts), on: 'time-skipping-server' });
  try {
    for (const scenario of todo) {
      const history = await record(env, scenario, scripts);
      const file = path.join(dir, historyFile(scenario));
      await mkdir(path.dirname(file), { recursive: true });
      await writeFile(file, historyJson(history));
      options.onScenario?.(scenario, 'recorded', file);
    }
  } finally {
    await env.teardown();
  }
}
