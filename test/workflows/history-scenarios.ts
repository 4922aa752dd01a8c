// The paths through each workflow whose histories are kept under test/histories/<type>/<name>.json
// and replayed by recorded-histories.test.ts. scripts/record-histories.ts runs them on Temporal's
// time-skipping test server (history-recorder.ts); this module is only their description, so the
// test can check that every scenario has its file without loading the recorder.
//
// The workflows run as the service starts them (orchestration/starts.ts builds the arguments and
// search attributes), under the workflow id `<type>/<name>`, which the replay passes too. Their
// activities are stand-ins that answer what the scenario scripts (`script`), in the shapes the real
// activities return: replay never runs activities, it checks the commands the workflow code makes
// from their results.
import type * as workflows from '../../workflows';
import { CHECKOUT_LIFETIME_MS, OUTCOME_POLL_MS } from '../../domain/checkout-rules';
import { WEBHOOK_MAX_ATTEMPTS } from '../../domain/webhook-retry';
import { cardChargeStart, cardExpiringStart, checkoutLifetimeStart, invoiceCollectionStart, monthlyLimitResetStart, refundStart, subscriptionStart, testClockAdvanceStart, webhookDeliveryStart, webhookResendStart } from '../../orchestration/starts';
import type { WorkflowStart } from '../../orchestration/port';
import type { AttemptResult } from '../../activities/checkouts';
import type { ChargeResult } from '../../activities/cards';
import type { ClockStep } from '../../activities/test-clocks';
import type { CollectionStep } from '../../activities/invoices';
import type { SubscriptionNext } from '../../domain/subscription-rules';

/** The workflow types of workflows/index.ts (its exported functions). */
export type WorkflowType = { [K in keyof typeof workflows]: (typeof workflows)[K] extends (...args: never[]) => unknown ? K : never }[keyof typeof workflows];

/** What the stand-in activities answer for the scenario's object, in order. */
export interface Script {
  /** checkoutLifetime: settleAttempt's answers. */
  settle?: AttemptResult[];
  /** checkoutLifetime: closeCheckout's answer, if the scenario reaches it. */
  close?: 'completed' | 'expired';
  /** webhookDelivery, webhookResend: whether each attempt is answered 2xx. */
  answers?: boolean[];
  /** webhookDelivery, webhookResend: attempts the delivery had before this run. */
  attemptsBefore?: number;
  /** cardCharge: settleCharge's answers. */
  charge?: ChargeResult[];
  /** cardExpiringNotices: how many card.expiring each run's sendCardExpiringNotices sent. */
  expiring?: number[];
  /** monthlyLimitReset: how many account.limit.reset each run's sendLimitResets sent. */
  resets?: number[];
  /**
   * paymentRefund: submitRefund's answer, then settleRefund's: decided, or pending with when the
   * processor expects to decide (ms after the question; null when it does not say).
   */
  refund?: ('succeeded' | 'failed' | { pendingMs: number | null })[];
  /** testClockAdvance: stepTestClock's answers. */
  clock?: ClockStep[];
  /** subscriptionLife: stepSubscription's answers (the next step). */
  step?: SubscriptionNext[];
  /** invoiceCollection: chargeInvoice's answers. */
  collect?: CollectionStep[];
  /** invoiceCollection: noticeInvoice's answers (whether the invoice is still open). */
  notice?: boolean[];
}

/** How a scenario drives its workflow (history-recorder.ts implements it on the test server). */
export interface Driver {
  /** The server's time, in ms. */
  now(): Promise<number>;
  /** Starts the workflow as the service would; the driver gives it the scenario's workflow id. */
  start(start: WorkflowStart): Promise<void>;
  signal(name: string, args: unknown[]): Promise<void>;
  /** Sends an update and waits for its result (time is skipped meanwhile). */
  update(name: string, args: unknown[]): Promise<unknown>;
  /** Waits (in real time, nothing skipped) until the workflow has finished its task and waits. */
  idle(): Promise<void>;
}

export interface HistoryScenario {
  workflowType: WorkflowType;
  /** The file's name: test/histories/<workflowType>/<name>.json. */
  name: string;
  /** One line: the path through the workflow. */
  what: string;
  /** The scenario's object (checkout, delivery or payment id; a sweep's instant), which the stand-ins look the script up by. */
  objectId: string;
  script: Script;
  /** Starts and drives the workflow; the recorder then waits for its result, skipping time. */
  drive(driver: Driver, objectId: string): Promise<void>;
  /**
   * The workflow's result (the recorder checks it, and that the script was used up); or
   * CONTINUED_AS_NEW for a workflow that runs for ever: its file is its first run, which ends by
   * continuing as new (the recorder skips time until it has, and the next run waits).
   */
  result: unknown;
}

const ACCOUNT = { account_id: 'acct_recorded', mode: 'test' as const };

const TRIAL_SCRIPT: Script = { step: [{ kind: 'trial_end', at: 0 }, { kind: 'renew', at: Date.parse('2030-01-31T04:30:00.000Z') }] };

/** An active subscription's row as subscriptionStart reads it, made now, on wall time. */
function subscriptionRow(id: string, now: number) {
  return {
    id, ...ACCOUNT, status: 'active' as const, test_clock_id: null, created_at: new Date(now), current_period_start: new Date(now), current_period_end: new Date(now + 30 * 24 * 60 * 60 * 1000),
    trial_end: null, trial_notice_for: null, upcoming_notice_for: null, cancel_at_period_end: false, cancel_at: null,
  };
}

/** The `result` of a scenario whose workflow never ends (see HistoryScenario). */
export const CONTINUED_AS_NEW = 'continued-as-new';

async function startCheckout(driver: Driver, id: string, options: { lifetimeMs?: number; attemptInFlight?: number } = {}): Promise<void> {
  const expiresAt = new Date((await driver.now()) + (options.lifetimeMs ?? CHECKOUT_LIFETIME_MS));
  await driver.start(checkoutLifetimeStart({ id, expires_at: expiresAt, ...ACCOUNT }, options.attemptInFlight));
  await driver.idle();
}

/** The hosted page's paymentAttempted signal for one attempt, once the workflow has applied the last. */
async function attempt(driver: Driver, number: number): Promise<void> {
  await driver.signal('paymentAttempted', [number]);
  await driver.idle();
}

export const HISTORY_SCENARIOS: readonly HistoryScenario[] = [
  {
    workflowType: 'checkoutLifetime',
    name: 'paid-first-attempt',
    what: 'attempt 1 is signalled and approved: the checkout completes',
    objectId: 'chk_rec_paid_first',
    script: { settle: ['succeeded'] },
    async drive(driver, id) {
      await startCheckout(driver, id);
      await driver.signal('paymentAttempted', [1]);
    },
    result: 'completed',
  },
  {
    workflowType: 'checkoutLifetime',
    name: 'declined-then-paid',
    what: 'attempt 1 is declined, attempt 2 approved: the checkout completes',
    objectId: 'chk_rec_declined_then_paid',
    script: { settle: ['failed', 'succeeded'] },
    async drive(driver, id) {
      await startCheckout(driver, id);
      await attempt(driver, 1);
      await driver.signal('paymentAttempted', [2]);
    },
    result: 'completed',
  },
  {
    workflowType: 'checkoutLifetime',
    name: 'never-paid-expired',
    what: 'no attempt in the 30 minutes: closeCheckout expires it',
    objectId: 'chk_rec_expired',
    script: { close: 'expired' },
    async drive(driver, id) {
      await startCheckout(driver, id);
    },
    result: 'expired',
  },
  {
    workflowType: 'checkoutLifetime',
    name: 'declined-then-expired',
    what: 'attempt 1 is declined and no other comes: the checkout expires',
    objectId: 'chk_rec_declined_expired',
    script: { settle: ['failed'], close: 'expired' },
    async drive(driver, id) {
      await startCheckout(driver, id);
      await driver.signal('paymentAttempted', [1]);
    },
    result: 'expired',
  },
  {
    workflowType: 'checkoutLifetime',
    name: 'pending-polled-then-paid',
    what: 'attempt 1 is still pending at the processor; asked again a minute later, it is approved',
    objectId: 'chk_rec_pending_then_paid',
    script: { settle: ['pending', 'succeeded'] },
    async drive(driver, id) {
      await startCheckout(driver, id);
      await driver.signal('paymentAttempted', [1]);
    },
    result: 'completed',
  },
  {
    workflowType: 'checkoutLifetime',
    name: 'pending-until-expiry-completed',
    what: 'attempt 1 stays pending at every poll; at the expiry closeCheckout finds it authorised after all',
    objectId: 'chk_rec_pending_until_expiry',
    // A short lifetime keeps the file small: polls at about 1 and 2 minutes, the expiry at 2.5.
    script: { settle: ['pending', 'pending', 'pending'], close: 'completed' },
    async drive(driver, id) {
      await startCheckout(driver, id, { lifetimeMs: 2.5 * OUTCOME_POLL_MS });
      await driver.signal('paymentAttempted', [1]);
    },
    result: 'completed',
  },
  {
    workflowType: 'checkoutLifetime',
    name: 'attempt-outcome-update',
    what: 'attempt 1 is pending when handed over; the return page\'s attemptOutcome update asks again and is answered succeeded',
    objectId: 'chk_rec_update',
    script: { settle: ['pending', 'succeeded'] },
    async drive(driver, id) {
      await startCheckout(driver, id);
      await attempt(driver, 1);
      const answer = await driver.update('attemptOutcome', [1]);
      if (answer !== 'succeeded') throw new Error(`attemptOutcome answered ${JSON.stringify(answer)}, not "succeeded"`);
    },
    result: 'completed',
  },
  {
    workflowType: 'checkoutLifetime',
    name: 'restarted-attempt-in-flight',
    what: 'started again at boot with an attempt at the processor (attemptInFlight): asked about at once, approved',
    objectId: 'chk_rec_restarted',
    script: { settle: ['succeeded'] },
    async drive(driver, id) {
      await startCheckout(driver, id, { attemptInFlight: 1 });
    },
    result: 'completed',
  },
  {
    workflowType: 'webhookDelivery',
    name: 'delivered-first-try',
    what: 'the first attempt is answered 2xx',
    objectId: 'whd_rec_first_try',
    script: { answers: [true] },
    async drive(driver, id) {
      await driver.start(webhookDeliveryStart({ id, ...ACCOUNT }));
    },
    result: 'delivered',
  },
  {
    workflowType: 'webhookDelivery',
    name: 'retried-then-delivered',
    what: 'two attempts fail; after the 1- and 5-minute waits the third is answered 2xx',
    objectId: 'whd_rec_retried',
    script: { answers: [false, false, true] },
    async drive(driver, id) {
      await driver.start(webhookDeliveryStart({ id, ...ACCOUNT }));
    },
    result: 'delivered',
  },
  {
    workflowType: 'webhookDelivery',
    name: 'retry-ladder-failed',
    what: 'all seven attempts on the ladder fail: failWebhookDelivery, and the workflow ends failed',
    objectId: 'whd_rec_failed',
    script: { answers: Array<boolean>(WEBHOOK_MAX_ATTEMPTS).fill(false) },
    async drive(driver, id) {
      await driver.start(webhookDeliveryStart({ id, ...ACCOUNT }));
    },
    result: 'failed',
  },
  {
    workflowType: 'webhookDelivery',
    name: 'resumed-mid-ladder',
    what: 'started again at boot after three failed attempts, 10 minutes before the fourth: waits, then delivered',
    objectId: 'whd_rec_resumed',
    script: { attemptsBefore: 3, answers: [true] },
    async drive(driver, id) {
      await driver.start(webhookDeliveryStart({ id, ...ACCOUNT }, { attemptsMade: 3, waitMs: 10 * 60 * 1000 }));
    },
    result: 'delivered',
  },
  {
    workflowType: 'webhookResend',
    name: 'one-attempt',
    what: 'a re-send by hand: one attempt, answered 2xx',
    objectId: 'whd_rec_resend',
    script: { attemptsBefore: 7, answers: [true] },
    async drive(driver, id) {
      await driver.start(webhookResendStart({ id, ...ACCOUNT, attempt_count: 7 }));
    },
    result: true,
  },
  {
    workflowType: 'cardCharge',
    name: 'decided-first-ask',
    what: 'a saved-card charge: the processor is asked 5 s after it and has decided (succeeded)',
    objectId: 'pay_rec_charge_decided',
    script: { charge: ['succeeded'] },
    async drive(driver, id) {
      await driver.start(cardChargeStart({ id, ...ACCOUNT }));
    },
    result: 'succeeded',
  },
  {
    workflowType: 'cardCharge',
    name: 'pending-then-declined',
    what: 'still pending at the first question (5 s); declined at the second, 10 s later',
    objectId: 'pay_rec_charge_pending',
    script: { charge: ['pending', 'failed'] },
    async drive(driver, id) {
      await driver.start(cardChargeStart({ id, ...ACCOUNT }));
    },
    result: 'failed',
  },
  {
    workflowType: 'cardExpiringNotices',
    name: 'month-then-continued',
    what: 'started at boot after the month\'s instant (the 1st, 09:00 in Colombo): makes its sweep at once (2 sent), sleeps to the next month\'s instant and continues as new, whose run makes that sweep (1)',
    // One workflow for the whole service: the stand-in's script goes by this name.
    objectId: 'card-expiring',
    script: { expiring: [2, 1] },
    async drive(driver) {
      await driver.start(cardExpiringStart());
    },
    result: CONTINUED_AS_NEW,
  },
  {
    workflowType: 'monthlyLimitReset',
    name: 'month-then-continued',
    what: 'started at boot: sends the month\'s resets still due (1), sleeps to midnight on the next 1st in Colombo and continues as new, whose run sends that month\'s (3)',
    // One workflow for the whole service: the stand-in's script goes by this name.
    objectId: 'limit-reset',
    script: { resets: [1, 3] },
    async drive(driver) {
      await driver.start(monthlyLimitResetStart());
    },
    result: CONTINUED_AS_NEW,
  },
  {
    workflowType: 'paymentRefund',
    name: 'pending-until-settled',
    what: 'the payment has not settled: pending, the processor expecting to decide in 5 s; asked again then, succeeded',
    objectId: 're_rec_settled',
    script: { refund: [{ pendingMs: 5_000 }, 'succeeded'] },
    async drive(driver, id) {
      await driver.start(refundStart({ id, ...ACCOUNT }));
    },
    result: 'succeeded',
  },
  {
    workflowType: 'paymentRefund',
    name: 'decided-when-asked',
    what: 'the payment had settled: the refund is decided (succeeded) when asked for',
    objectId: 're_rec_at_once',
    script: { refund: ['succeeded'] },
    async drive(driver, id) {
      await driver.start(refundStart({ id, ...ACCOUNT }));
    },
    result: 'succeeded',
  },
  {
    workflowType: 'paymentRefund',
    name: 'failed-after-settlement',
    what: 'pending until the payment settles 5 s later; then the bank returns it: failed',
    objectId: 're_rec_failed',
    script: { refund: [{ pendingMs: 5_000 }, 'failed'] },
    async drive(driver, id) {
      await driver.start(refundStart({ id, ...ACCOUNT }));
    },
    result: 'failed',
  },
  {
    workflowType: 'paymentRefund',
    name: 'polled-without-a-time',
    what: 'the processor says pending without saying when: asked again a minute later, pending, then two minutes after that, succeeded',
    objectId: 're_rec_polled',
    script: { refund: [{ pendingMs: null }, { pendingMs: null }, 'succeeded'] },
    async drive(driver, id) {
      await driver.start(refundStart({ id, ...ACCOUNT }));
    },
    result: 'succeeded',
  },
  {
    workflowType: 'testClockAdvance',
    name: 'two-instants',
    what: 'a clock advanced over two instants: wakes the workflow due at the first, waits (a second, nothing moved) until it has settled, wakes the one due at the second, then ready',
    objectId: 'clock_rec_two_instants',
    script: {
      clock: [
        { kind: 'wake', at: Date.parse('2027-02-28T04:30:00.000Z'), workflowIds: ['subscription/sub_rec_a'] },
        { kind: 'wait' },
        { kind: 'wake', at: Date.parse('2027-03-31T04:30:00.000Z'), workflowIds: ['subscription/sub_rec_a', 'invoice/in_rec_b'] },
        { kind: 'ready' },
      ],
    },
    async drive(driver, id) {
      await driver.start(testClockAdvanceStart({ id, ...ACCOUNT, advancing_to: new Date('2027-04-01T00:00:00.000Z') }));
    },
    result: undefined,
  },
  {
    workflowType: 'subscriptionLife',
    name: 'renewed-then-continued',
    what: 'on wall time: sleeps to the period\'s end (a minute on), renews (stepSubscription answers the next renewal, far ahead) and continues as new for it',
    objectId: 'sub_rec_monthly',
    // The next renewal: far enough that the continued run still waits when the recording ends.
    script: { step: [{ kind: 'renew', at: Date.parse('2030-01-31T04:30:00.000Z') }] },
    async drive(driver, id) {
      await driver.start(subscriptionStart({ ...subscriptionRow(id, await driver.now()), current_period_end: new Date((await driver.now()) + 60_000) }));
    },
    result: CONTINUED_AS_NEW,
  },
  {
    workflowType: 'subscriptionLife',
    name: 'ended',
    what: 'on wall time: at the period\'s end the subscription has ended (stepSubscription answers ended): the workflow ends',
    objectId: 'sub_rec_ended',
    script: { step: [{ kind: 'ended' }] },
    async drive(driver, id) {
      await driver.start(subscriptionStart({ ...subscriptionRow(id, await driver.now()), current_period_end: new Date((await driver.now()) + 60_000) }));
    },
    result: undefined,
  },
  {
    workflowType: 'subscriptionLife',
    name: 'trial-moved-then-ended',
    what: 'on wall time: a trial\'s notice is due far ahead; subscriptionChanged (its trialEnd moved) makes it ask again: the trial ends in a minute; it ends there (stepSubscription answers the first renewal, far ahead) and continues as new',
    objectId: 'sub_rec_trial',
    script: TRIAL_SCRIPT,
    async drive(driver, id) {
      const now = await driver.now();
      // The trial's new end: a minute on in the server's time, known only once it runs.
      TRIAL_SCRIPT.step![0] = { kind: 'trial_end', at: now + 60_000 };
      const trialEnd = new Date(Date.parse('2030-01-01T00:00:00.000Z'));
      await driver.start(subscriptionStart({ ...subscriptionRow(id, now), status: 'trialing', trial_end: trialEnd, current_period_end: trialEnd }));
      await driver.idle();
      await driver.signal('subscriptionChanged', []);
    },
    result: CONTINUED_AS_NEW,
  },
  {
    workflowType: 'subscriptionLife',
    name: 'paused-then-ended',
    what: 'on wall time: a paused subscription has no step (idle): the workflow waits for subscriptionChanged alone; signalled (canceled), it asks again and ends',
    objectId: 'sub_rec_paused',
    script: { step: [{ kind: 'ended' }] },
    async drive(driver, id) {
      await driver.start(subscriptionStart({ ...subscriptionRow(id, await driver.now()), status: 'paused' }));
      await driver.idle();
      await driver.signal('subscriptionChanged', []);
    },
    result: undefined,
  },
  {
    workflowType: 'invoiceCollection',
    name: 'declined-then-paid',
    what: 'on wall time: the first charge is pending (asked again 5 s later), then declined with its retry already due; the retry is paid: the workflow ends',
    objectId: 'in_rec_dunning',
    script: { collect: [{ kind: 'pending' }, { kind: 'declined', nextAttemptAt: Date.parse('2020-01-01T00:00:00.000Z') }, { kind: 'paid' }] },
    async drive(driver, id) {
      const invoice = { id, ...ACCOUNT, collection_method: 'charge_automatically' as const, attempt_count: 0, next_attempt_at: null, finalized_at: null, due_date: null };
      await driver.start(invoiceCollectionStart(invoice, null));
    },
    result: undefined,
  },
  {
    workflowType: 'invoiceCollection',
    name: 'reminded-then-overdue',
    what: 'send_invoice on wall time: the reminder three days before the due date, then the overdue notice when it passes',
    objectId: 'in_rec_sent',
    script: { notice: [true, true] },
    async drive(driver, id) {
      const now = await driver.now();
      const invoice = { id, ...ACCOUNT, collection_method: 'send_invoice' as const, attempt_count: 0, next_attempt_at: null, finalized_at: new Date(now), due_date: new Date(now + 7 * 24 * 60 * 60 * 1000) };
      await driver.start(invoiceCollectionStart(invoice, null));
    },
    result: undefined,
  },
];

/** The file a scenario's history is kept in, relative to test/histories/. */
export function historyFile(scenario: Pick<HistoryScenario, 'workflowType' | 'name'>): string {
  return `${scenario.workflowType}/${scenario.name}.json`;
}

/** The workflow id a history was recorded under and is replayed with: the file without `.json`. */
export function workflowIdOf(file: string): string {
  return file.replace(/\.json$/, '');
}
