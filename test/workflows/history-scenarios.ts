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
import { LADDER_ATTEMPTS, nextAttemptAt } from '../../domain/dunning';
import { INCOMPLETE_EXPIRY_MS, nextSubscriptionStep, sameStep, TRIAL_NOTICE_DAYS, UPCOMING_NOTICE_DAYS } from '../../domain/subscription-rules';
import { cardChargeStart, cardExpiringStart, checkoutLifetimeStart, invoiceCollectionStart, invoicePaymentStart, monthlyLimitResetStart, refundStart, subscriptionStart, testClockAdvanceStart, webhookDeliveryStart, webhookResendStart } from '../../orchestration/starts';
import type { WorkflowStart } from '../../orchestration/port';
import type { AttemptResult } from '../../activities/checkouts';
import type { ChargeResult } from '../../activities/cards';
import type { ClockStep } from '../../activities/test-clocks';
import type { CollectionStep } from '../../activities/invoices';
import type { SteppedSubscription } from '../../services/subscriptions/step';

/** The workflow types of workflows/index.ts (its exported functions). */
export type WorkflowType = { [K in keyof typeof workflows]: (typeof workflows)[K] extends (...args: never[]) => unknown ? K : never }[keyof typeof workflows];

/** What the stand-in activities answer for the scenario's object, in order. */
export interface Script {
  /** checkoutLifetime: settleAttempt's answers. */
  settle?: AttemptResult[];
  /** checkoutLifetime: closeCheckout's answer, if the scenario reaches it (its answers, when asked again while `pending`). */
  close?: 'completed' | 'expired' | ('completed' | 'expired' | 'pending')[];
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
  step?: SteppedSubscription[];
  /** invoiceCollection: chargeInvoice's answers. */
  collect?: CollectionStep[];
  /** invoiceCollection: noticeInvoice's answers (whether the invoice is still open). */
  notice?: boolean[];
  /**
   * A workflow on a test clock (subscriptionLife, invoiceCollection with a clockId): waitOnClock's
   * answers, the clock's time (ms) when each wait is written, its continued run's included.
   */
  clockTime?: number[];
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
  /**
   * The stand-ins' answers; or, when they hold instants of wall time (a retry's nextAttemptAt), made
   * from `at`, the server's time when the recording begins, which drive() is given too.
   */
  script: Script | ((at: number) => Script);
  /** Starts and drives the workflow (`at`: as given to a script made from it); the recorder then waits for its result, skipping time. */
  drive(driver: Driver, objectId: string, at: number): Promise<void>;
  /**
   * The workflow's result (the recorder checks it, and that the script was used up); or
   * CONTINUED_AS_NEW for a workflow that runs for ever: its file is its first run, which ends by
   * continuing as new (the recorder skips time until it has, and the next run waits).
   */
  result: unknown;
}

const ACCOUNT = { account_id: 'acct_recorded', mode: 'test' as const };

// Its trialEnd moved to now: the end is due at once (at 0, long past).
const TRIAL_SCRIPT: Script = { step: [{ kind: 'trial_end', at: 0 }, { kind: 'renew', at: Date.parse('2030-01-31T04:30:00.000Z') }] };

/** An active subscription's row as subscriptionStart reads it, made now, on wall time. */
function subscriptionRow(id: string, now: number) {
  return {
    id, ...ACCOUNT, status: 'active' as const, test_clock_id: null, created_at: new Date(now), current_period_start: new Date(now), current_period_end: new Date(now + 30 * 24 * 60 * 60 * 1000),
    trial_end: null, trial_notice_for: null, upcoming_notice_for: null, cancel_at_period_end: false, cancel_at: null,
  };
}

const DAY_MS = 24 * 60 * 60 * 1000;

/** A subscription's period in these scenarios (subscriptionRow's). */
const PERIOD_MS = 30 * DAY_MS;

/** Where the scenarios' test clocks stand when their workflows start: 10:00 in Colombo. */
const CLOCK_START = Date.parse('2027-01-15T04:30:00.000Z');

/** A charge_automatically invoice's row as invoiceCollectionStart reads it, just finalised: its first charge due now. */
function chargedInvoice(id: string) {
  return { id, ...ACCOUNT, collection_method: 'charge_automatically' as const, attempt_count: 0, next_attempt_at: null, finalized_at: null, due_date: null };
}

/** A retry's `nextAttemptAt` as chargeInvoice answers it: the ladder's (domain/dunning.ts), after `attempts` failed attempts. */
function ladderAt(firstDeclineAt: number, attempts: number): number | null {
  return nextAttemptAt(new Date(firstDeclineAt), attempts)?.getTime() ?? null;
}

/**
 * A test clock's advance reaching `at`: once the workflow has written its wait on the clock and
 * waits, the clockAdvanced signal that wakeClockWaiters sends the workflows due.
 */
async function clockAdvanced(driver: Driver, at: number): Promise<void> {
  await driver.idle();
  await driver.signal('clockAdvanced', [at]);
}

/** A subscription on a clock signalled at its invoice_upcoming notice, then at its renewal. */
async function noticeThenRenewOnClock(driver: Driver, id: string): Promise<void> {
  await driver.start(subscriptionStart({ ...subscriptionRow(id, CLOCK_START), test_clock_id: 'clock_rec_subscription' }));
  await clockAdvanced(driver, CLOCK_START + PERIOD_MS - UPCOMING_NOTICE_DAYS * DAY_MS);
  await clockAdvanced(driver, CLOCK_START + PERIOD_MS);
  // The continued run is at rest: nothing is in flight when the recorder takes the first run's history.
  await driver.idle();
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
    name: 'unknown-at-expiry-asked-again',
    what: 'attempt 1 is pending; at the expiry the processor still cannot tell, so closing is asked again with backoff until the attempt is authorised',
    objectId: 'chk_rec_unknown_at_expiry',
    script: { settle: ['pending', 'pending'], close: ['pending', 'pending', 'completed'] },
    async drive(driver, id) {
      await startCheckout(driver, id, { lifetimeMs: 1.5 * OUTCOME_POLL_MS });
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
    what: 'on wall time: a trial\'s notice is due far ahead; subscriptionChanged (its trialEnd moved to now) makes it ask again: the trial\'s end is due at once; it ends there (stepSubscription answers the first renewal, far ahead) and continues as new',
    objectId: 'sub_rec_trial',
    script: TRIAL_SCRIPT,
    async drive(driver, id) {
      const now = await driver.now();
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
    workflowType: 'subscriptionLife',
    name: 'incomplete-expired',
    what: 'on wall time: an incomplete subscription (its first invoice unpaid) sleeps to expire_incomplete, 23 hours after it was made, and takes it (stepSubscription answers ended): the workflow ends',
    objectId: 'sub_rec_incomplete',
    script: { step: [{ kind: 'ended' }] },
    async drive(driver, id, at) {
      const row = { ...subscriptionRow(id, at), status: 'incomplete' as const };
      if (!sameStep(nextSubscriptionStep(row), { kind: 'expire_incomplete', at: at + INCOMPLETE_EXPIRY_MS })) throw new Error('an incomplete subscription\'s first step is not its expiry 23 hours on');
      await driver.start(subscriptionStart(row));
    },
    result: undefined,
  },
  {
    workflowType: 'subscriptionLife',
    name: 'incomplete-paid-then-renewed',
    what: 'on wall time: an incomplete subscription waits for expire_incomplete, 23 hours on; its first invoice paid, subscriptionChanged makes it ask again (stepSubscription answers the renewal, a minute on): the expiry\'s timer is cancelled, it sleeps to the renewal, renews (answers the next, far ahead) and continues as new',
    objectId: 'sub_rec_incomplete_paid',
    script: (at) => ({ step: [{ kind: 'renew', at: at + 60_000 }, { kind: 'renew', at: Date.parse('2030-01-31T04:30:00.000Z') }] }),
    async drive(driver, id, at) {
      await driver.start(subscriptionStart({ ...subscriptionRow(id, at), status: 'incomplete' }));
      await driver.idle();
      await driver.signal('subscriptionChanged', []);
    },
    result: CONTINUED_AS_NEW,
  },
  {
    workflowType: 'subscriptionLife',
    name: 'trial-noticed-then-converted',
    what: 'on wall time: a 14-day trial sleeps to trial_will_end, three days before its end, and sends it (stepSubscription answers trial_end); sleeps to trial_end and ends the trial (answers the first period\'s invoice_upcoming, 27 days on): continues as new for it',
    objectId: 'sub_rec_trial_converted',
    script: (at) => ({
      step: [
        { kind: 'trial_end', at: at + 14 * DAY_MS },
        { kind: 'invoice_upcoming', at: at + 14 * DAY_MS + PERIOD_MS - UPCOMING_NOTICE_DAYS * DAY_MS },
      ],
    }),
    async drive(driver, id, at) {
      const trialEnd = new Date(at + 14 * DAY_MS);
      const row = { ...subscriptionRow(id, at), status: 'trialing' as const, trial_end: trialEnd, current_period_end: trialEnd };
      if (!sameStep(nextSubscriptionStep(row), { kind: 'trial_will_end', at: trialEnd.getTime() - TRIAL_NOTICE_DAYS * DAY_MS })) throw new Error('a 14-day trial\'s first step is not its notice three days before its end');
      await driver.start(subscriptionStart(row));
    },
    result: CONTINUED_AS_NEW,
  },
  {
    workflowType: 'subscriptionLife',
    name: 'upcoming-then-renewed',
    what: 'on wall time: a 30-day period sleeps to invoice_upcoming, three days before its end, and sends it (stepSubscription answers renew); sleeps to the period\'s end and renews (answers the next period\'s invoice_upcoming): continues as new for it',
    objectId: 'sub_rec_upcoming',
    script: (at) => ({
      step: [
        { kind: 'renew', at: at + PERIOD_MS },
        { kind: 'invoice_upcoming', at: at + 2 * PERIOD_MS - UPCOMING_NOTICE_DAYS * DAY_MS },
      ],
    }),
    async drive(driver, id, at) {
      await driver.start(subscriptionStart(subscriptionRow(id, at)));
    },
    result: CONTINUED_AS_NEW,
  },
  {
    workflowType: 'subscriptionLife',
    name: 'on-clock-renewed-then-continued',
    what: 'on a test clock: writes its wait for invoice_upcoming (waitOnClock), 27 days on the clock; the advance signals clockAdvanced there; sends it (stepSubscription answers renew) and writes its wait for the period\'s end; signalled there, renews (answers the next invoice_upcoming) and continues as new, whose run writes its wait',
    objectId: 'sub_rec_on_clock',
    script: {
      step: [
        { kind: 'renew', at: CLOCK_START + PERIOD_MS },
        { kind: 'invoice_upcoming', at: CLOCK_START + 2 * PERIOD_MS - UPCOMING_NOTICE_DAYS * DAY_MS },
      ],
      clockTime: [CLOCK_START, CLOCK_START + PERIOD_MS - UPCOMING_NOTICE_DAYS * DAY_MS, CLOCK_START + PERIOD_MS],
    },
    drive: noticeThenRenewOnClock,
    result: CONTINUED_AS_NEW,
  },
  {
    workflowType: 'subscriptionLife',
    name: 'on-clock-steps-write-their-waits',
    what: 'on a test clock: writes its first wait (waitOnClock), for invoice_upcoming; signalled there, sends it, and stepSubscription answers renew with the clock\'s time, its wait written in the step: no waitOnClock; signalled at the period\'s end, renews (the next invoice_upcoming, its wait written too) and continues as new with the clock\'s time, whose run writes no wait of its own',
    objectId: 'sub_rec_waits_written',
    script: {
      step: [
        { kind: 'renew', at: CLOCK_START + PERIOD_MS, clockNow: CLOCK_START + PERIOD_MS - UPCOMING_NOTICE_DAYS * DAY_MS },
        { kind: 'invoice_upcoming', at: CLOCK_START + 2 * PERIOD_MS - UPCOMING_NOTICE_DAYS * DAY_MS, clockNow: CLOCK_START + PERIOD_MS },
      ],
      clockTime: [CLOCK_START],
    },
    drive: noticeThenRenewOnClock,
    result: CONTINUED_AS_NEW,
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
  {
    workflowType: 'invoiceCollection',
    name: 'paid-first-charge',
    what: 'charge_automatically on wall time: the first charge is paid at once: the workflow ends',
    objectId: 'in_rec_paid_first',
    script: { collect: [{ kind: 'paid' }] },
    async drive(driver, id) {
      await driver.start(invoiceCollectionStart(chargedInvoice(id), null));
    },
    result: undefined,
  },
  {
    workflowType: 'invoiceCollection',
    name: 'ladder-to-unpaid',
    what: 'on wall time: the first charge is declined, and each retry on the ladder too, on days 1, 3, 7 and 14 after the first decline; the last answers no next attempt (nextAttemptAt null: the ladder is over): the workflow ends',
    objectId: 'in_rec_ladder',
    script: (at) => ({ collect: Array.from({ length: LADDER_ATTEMPTS }, (_, i) => ({ kind: 'declined' as const, nextAttemptAt: ladderAt(at, i + 1) })) }),
    async drive(driver, id) {
      await driver.start(invoiceCollectionStart(chargedInvoice(id), null));
    },
    result: undefined,
  },
  {
    workflowType: 'invoiceCollection',
    name: 'closed-mid-ladder',
    what: 'on wall time: the first charge is declined; at the retry a day later the invoice has been voided (its subscription canceled at once): chargeInvoice answers closed and the workflow ends',
    objectId: 'in_rec_closed',
    script: (at) => ({ collect: [{ kind: 'declined', nextAttemptAt: ladderAt(at, 1) }, { kind: 'closed' }] }),
    async drive(driver, id) {
      await driver.start(invoiceCollectionStart(chargedInvoice(id), null));
    },
    result: undefined,
  },
  {
    workflowType: 'invoiceCollection',
    name: 'one-attempt',
    what: 'a charge asked for by POST /v1/invoices/{id}/pay (invoicePaymentStart, once): attempt 2 of an invoice declined once, pending when the request answered; asked at once, still pending; 5 s later declined with the ladder\'s next attempt (day 3 after the first decline): the workflow ends without a retry',
    objectId: 'in_rec_pay_by_hand',
    // The first decline was six hours before the request.
    script: (at) => ({ collect: [{ kind: 'pending' }, { kind: 'declined', nextAttemptAt: ladderAt(at - 6 * 60 * 60 * 1000, 2) }] }),
    async drive(driver, id) {
      await driver.start(invoicePaymentStart({ id, ...ACCOUNT }, 2, null));
    },
    result: undefined,
  },
  {
    workflowType: 'invoiceCollection',
    name: 'on-clock-declined-then-paid',
    what: 'charge_automatically on a test clock: the first charge is declined, its retry due a day later on the clock; the workflow writes its wait (waitOnClock), the advance signals clockAdvanced at that instant, the retry is paid and the workflow leaves the clock (leaveClock) and ends',
    objectId: 'in_rec_on_clock',
    script: { collect: [{ kind: 'declined', nextAttemptAt: ladderAt(CLOCK_START, 1) }, { kind: 'paid' }], clockTime: [CLOCK_START] },
    async drive(driver, id) {
      await driver.start(invoiceCollectionStart(chargedInvoice(id), 'clock_rec_invoice'));
      await clockAdvanced(driver, ladderAt(CLOCK_START, 1)!);
    },
    result: undefined,
  },
  {
    workflowType: 'invoiceCollection',
    name: 'on-clock-declined-then-paid-leaving-with-charge',
    what: 'as on-clock-declined-then-paid, recorded after the change (patched leave-clock-with-charge) by which the attempt that ends the collection takes its wait off the clock: the paid retry is the last activity, no leaveClock follows',
    objectId: 'in_rec_on_clock_leaving',
    script: { collect: [{ kind: 'declined', nextAttemptAt: ladderAt(CLOCK_START, 1) }, { kind: 'paid' }], clockTime: [CLOCK_START] },
    async drive(driver, id) {
      await driver.start(invoiceCollectionStart(chargedInvoice(id), 'clock_rec_invoice'));
      await clockAdvanced(driver, ladderAt(CLOCK_START, 1)!);
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
