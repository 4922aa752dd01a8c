// Billing benchmarks on Kasi as `npm start` runs it (the embedded engine, the sandbox processor),
// with subscriptions charged automatically to each customer's default card (01/39, approved):
// - a year on a test clock: 100 subscriptions made through the API on one clock, advanced 12
//   months in one advance; the time until the clock is `ready`, 1,200 renewal invoices paid.
//   Target: under 10 s.
// - a renewal storm: 10,000 subscriptions on one test clock renewing at the same instant, one
//   advance to it, each with a coupon (20% off) and two tax rates (one exclusive, one inclusive); renewals per second (paid), and the time until the last renewal invoice is
//   paid. Target: at least 300 a second.
// - the heap per sleeping subscription workflow, with 10,000 open on wall time, in the service's
//   own process. Target: at most 8 kB.
// One subscription of each kind is made through the API and 9,999 or 10,000 more are copied from
// its rows (bench/subscribers.ts); the service starts their workflows as it does after a restart.
// Alone: node --expose-gc --import tsx bench/billing.ts
import type { Knex } from 'knex';
import pino from 'pino';
import { loadConfig } from '../config';
import { updateAccount } from '../db/accounts';
import { connect } from '../db/connection';
import { createMerchant, type MerchantKeys } from '../db/merchants';
import { periodBoundary } from '../domain/billing-periods';
import { createResumers } from '../workers/resumers';
import { startService } from '../workers/service';
import { runAsCommand } from './command';
import { benchDatabase, type BenchDatabase } from './database';
import { gcNote, settledHeapUsed } from './heap';
import { startServer, stopServer } from './load';
import { copySubscriptions, makeDefaultCards, seedCards } from './subscribers';

const STORM_SUBSCRIPTIONS = Number(process.env.BENCH_STORM_SUBSCRIPTIONS ?? 10_000);
const SLEEPING_SUBSCRIPTIONS = 10_000;
const YEAR_SUBSCRIPTIONS = 100;
const YEAR_MONTHS = 12;
/** The longest a wait for the service may take; the benchmarks' own bounds report what was done by then. */
const SETTLE_TIMEOUT_MS = 60_000;
const STORM_TIMEOUT_MS = Number(process.env.BENCH_STORM_SECONDS ?? 90) * 1000;
const YEAR_TIMEOUT_MS = 60_000;
const MONTHLY = { interval: 'month', intervalCount: 1 } as const;

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

/** Kasi's API with a secret test key: an Idempotency-Key on each POST, an error on anything but 2xx. */
function apiOf(url: string, keys: MerchantKeys) {
  let sent = 0;
  const call = async (method: 'GET' | 'POST', path: string, body?: unknown): Promise<Json> => {
    const headers: Record<string, string> = { authorization: `Bearer ${keys.sk_test}` };
    if (method === 'POST') Object.assign(headers, { 'content-type': 'application/json', 'idempotency-key': `bench-billing-${process.pid}-${Date.now()}-${++sent}` });
    const res = await fetch(`${url}${path}`, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
    const answer = (await res.json()) as Json;
    if (!res.ok) throw new Error(`${method} ${path}: ${res.status} ${JSON.stringify(answer)}`);
    return answer;
  };
  return { get: (path: string) => call('GET', path), post: (path: string, body: unknown = {}) => call('POST', path, body) };
}
type Api = ReturnType<typeof apiOf>;

/** Polls `check` every `everyMs` until it answers true; an error after `timeoutMs`. */
async function until(what: string, check: () => Promise<boolean>, timeoutMs = SETTLE_TIMEOUT_MS, everyMs = 100): Promise<void> {
  const deadline = performance.now() + timeoutMs;
  while (!(await check())) {
    if (performance.now() > deadline) throw new Error(`${what}: not within ${timeoutMs / 1000} s`);
    await new Promise((resolve) => setTimeout(resolve, everyMs));
  }
}

const countOf = async (query: Knex.QueryBuilder): Promise<number> => Number(((await query.count({ n: '*' }).first()) as { n: string }).n);

async function merchant(knex: Knex, name: string): Promise<{ accountId: string; keys: MerchantKeys }> {
  const { account, keys } = await createMerchant(knex, { name, now: new Date() });
  // The scale plan: the month's limit never refuses a charge (as in bench/cards.ts).
  await updateAccount(knex, account.id, { plan: 'scale' }, new Date());
  return { accountId: account.id, keys };
}

/**
 * Customers made through the API (on the clock, if any), each with a card seeded as its default,
 * and a monthly subscription each (charge_automatically: the first invoice charged at once), ten
 * requests at a time; returns once every first invoice is paid.
 */
async function subscribeThroughApi(knex: Knex, api: Api, accountId: string, options: { clockId: string | null; count: number; emailPrefix: string; adjustments?: Json }): Promise<{ subscriptionIds: string[]; priceId: string }> {
  const price = await api.post('/v1/prices', { product: { name: 'Bench plan' }, unitAmountCents: 150000, interval: 'month' });
  const emails = Array.from({ length: options.count }, (_, i) => `${options.emailPrefix}-${i}@example.com`);
  const inTurn = async <T>(make: (i: number) => Promise<T>): Promise<T[]> => {
    const made: T[] = [];
    let next = 0;
    await Promise.all(Array.from({ length: Math.min(10, options.count) }, async () => {
      for (let i = next++; i < options.count; i = next++) made[i] = await make(i);
    }));
    return made;
  };
  const customers = await inTurn((i) => api.post('/v1/customers', { email: emails[i], ...(options.clockId === null ? {} : { testClockId: options.clockId }) }));
  await makeDefaultCards(knex, customers.map((c) => c.id as string), await seedCards(knex, accountId, emails));
  const subscriptions = await inTurn((i) => api.post('/v1/subscriptions', { customerId: customers[i]!.id, priceId: price.id, ...options.adjustments }));
  const ids = subscriptions.map((s) => s.id as string);
  await until('the first invoices paid', async () => (await countOf(knex('invoices').whereIn('subscription_id', ids).where({ status: 'paid' }))) === ids.length);
  return { subscriptionIds: ids, priceId: price.id as string };
}

/** 12 months over 100 subscriptions in one advance: seconds until the clock is ready (null: not within the bound). */
async function yearOnClock(knex: Knex, api: Api, accountId: string): Promise<{ seconds: number | null; paid: number }> {
  const start = new Date(Math.floor(Date.now() / 1000) * 1000);
  const clock = await api.post('/v1/test_helpers/test_clocks', { frozenTime: start.toISOString(), name: 'Bench year' });
  await subscribeThroughApi(knex, api, accountId, { clockId: clock.id, count: YEAR_SUBSCRIPTIONS, emailPrefix: 'year' });
  // The incomplete subscriptions' 23-hour check, then each month the invoice.upcoming notice
  // (three days before) and the renewal, the last at the target.
  const target = periodBoundary(start, { interval: 'month', intervalCount: YEAR_MONTHS }, 1);
  const started = performance.now();
  await api.post(`/v1/test_helpers/test_clocks/${clock.id}/advance`, { frozenTime: target.toISOString() });
  let seconds: number | null = null;
  while (seconds === null && performance.now() - started < YEAR_TIMEOUT_MS) {
    await new Promise((resolve) => setTimeout(resolve, 50));
    if ((await api.get(`/v1/test_helpers/test_clocks/${clock.id}`)).status === 'ready') seconds = (performance.now() - started) / 1000;
  }
  const paid = await countOf(knex('invoices').where({ account_id: accountId, billing_reason: 'subscription_cycle', status: 'paid' }));
  return { seconds, paid };
}

interface Storm {
  renewed: number;
  paid: number;
  /** Seconds from the advance to the last renewal invoice made, to the last paid, to the clock ready (null: not by the bound). */
  lastMade: number | null;
  lastPaid: number | null;
  ready: number | null;
  elapsed: number;
}

/** One advance of the clock to `renewal`, the instant its `count` subscriptions all renew at. */
async function renewalStorm(knex: Knex, api: Api, accountId: string, clockId: string, count: number, renewal: Date): Promise<Storm> {
  const started = performance.now();
  await api.post(`/v1/test_helpers/test_clocks/${clockId}/advance`, { frozenTime: renewal.toISOString() });
  const storm: Storm = { renewed: 0, paid: 0, lastMade: null, lastPaid: null, ready: null, elapsed: 0 };
  while (storm.ready === null || storm.lastPaid === null) {
    await new Promise((resolve) => setTimeout(resolve, 250));
    const { rows } = (await knex.raw(
      `select count(*) as renewed, count(*) filter (where status = 'paid') as paid,
         (select advancing_to is null from test_clocks where id = ?) as ready
       from invoices where account_id = ? and billing_reason = 'subscription_cycle'`,
      [clockId, accountId],
    )) as { rows: { renewed: string; paid: string; ready: boolean }[] };
    storm.elapsed = (performance.now() - started) / 1000;
    storm.renewed = Number(rows[0]!.renewed);
    storm.paid = Number(rows[0]!.paid);
    if (storm.lastMade === null && storm.renewed >= count) storm.lastMade = storm.elapsed;
    if (storm.lastPaid === null && storm.paid >= count) storm.lastPaid = storm.elapsed;
    if (storm.ready === null && rows[0]!.ready) storm.ready = storm.elapsed;
    if (storm.elapsed * 1000 > STORM_TIMEOUT_MS) break;
  }
  return storm;
}

/**
 * Kasi in this process, as `npm start` runs it, so its heap is the one read: 10,000 subscriptions
 * on wall time copied from one made through the API, their workflows started by the service's
 * resumers and asleep until their next step; the heap in use before and after, per workflow.
 */
async function heapPerSleepingSubscription(database: BenchDatabase, templateId: string): Promise<{ perWorkflow: number; open: number }> {
  const config = loadConfig({ ...process.env, ...database.env, RATE_LIMIT_PER_MINUTE: '1000000000', LOG_LEVEL: 'silent' });
  const db = connect(database.url, 10);
  const service = await startService({ db, databaseUrl: database.url, config, log: pino({ level: 'silent' }), port: 0 });
  try {
    const engine = service.orchestration.engine!;
    // The template's own workflow, started at boot, is the one that warms the shared sandbox up.
    await engine.runUntilIdle();
    await copySubscriptions(database.knex, templateId, SLEEPING_SUBSCRIPTIONS, 'sleeps');
    const openBefore = engine.openWorkflowCount;
    const before = settledHeapUsed();
    let started: string[] = [];
    // As the service does at boot (workers/orchestration.ts): every resumer's starts; those of
    // workflows already running are no-ops, so what starts is the copies.
    for (const resumer of createResumers({ db, clock: service.clock })) {
      for (const start of await resumer()) if ((await service.orchestration.port.start(start)).started) started.push(start.workflowId);
    }
    await engine.runUntilIdle();
    const sleeping = started.filter((id) => id.startsWith('subscription/') && engine.describe(id)?.status === 'RUNNING').length;
    const open = engine.openWorkflowCount - openBefore;
    started = [];
    const after = settledHeapUsed();
    if (sleeping !== SLEEPING_SUBSCRIPTIONS) throw new Error(`expected ${SLEEPING_SUBSCRIPTIONS} subscription workflows started and asleep, found ${sleeping}`);
    // Workflows of the benchmarks before this one (in `npm run bench`) that ended or began between the readings.
    if (open !== SLEEPING_SUBSCRIPTIONS) console.log(`  (${open - SLEEPING_SUBSCRIPTIONS} other open workflows between the two readings: the figure counts them too)`);
    return { perWorkflow: (after - before) / SLEEPING_SUBSCRIPTIONS, open: sleeping };
  } finally {
    await service.stop();
    await db.destroy();
  }
}

export async function runBillingBench(given?: BenchDatabase): Promise<void> {
  const database = given ?? (await benchDatabase());
  const { knex } = database;
  const clockStart = new Date(Math.floor(Date.now() / 1000) * 1000);
  const renewal = periodBoundary(clockStart, MONTHLY, 1);
  const phase = (label: string, since: number) => console.log(`  (${label}: ${((performance.now() - since) / 1000).toFixed(1)} s)`);
  try {
    const began = performance.now();
    const year = await merchant(knex, 'Bench billing year');
    const storm = await merchant(knex, 'Bench billing storm');
    const sleeps = await merchant(knex, 'Bench billing sleeps');
    let kasi = await startServer('servers/kasi.ts', database.env);
    let stormClockId: string;
    let stormTemplate: string;
    let sleepTemplate: string;
    let yearFigures: { seconds: number | null; paid: number };
    try {
      // The templates: one subscription on the storm's clock, one on wall time (its first charge is
      // decided 5 s later, in the background of the year's benchmark).
      const stormApi = apiOf(kasi.url, storm.keys);
      stormClockId = (await stormApi.post('/v1/test_helpers/test_clocks', { frozenTime: clockStart.toISOString(), name: 'Bench storm' })).id as string;
      // Every renewal of the storm discounted and taxed: 20% off forever, VAT added and a levy contained.
      const adjustments = {
        couponId: (await stormApi.post('/v1/coupons', { name: 'Bench 20%', percentOff: 20, duration: 'forever' })).id,
        taxRateIds: [
          (await stormApi.post('/v1/tax_rates', { displayName: 'VAT', percentage: 18, inclusive: false })).id,
          (await stormApi.post('/v1/tax_rates', { displayName: 'SSCL', percentage: 2.5, inclusive: true })).id,
        ],
      };
      [stormTemplate] = (await subscribeThroughApi(knex, stormApi, storm.accountId, { clockId: stormClockId, count: 1, emailPrefix: 'storm', adjustments })).subscriptionIds as [string];
      // The template lives up to an hour before its renewal (its 23-hour check, and the
      // invoice.upcoming notice three days before the renewal), so its copies wait for the renewal
      // alone, and the storm's advance holds the renewals and nothing else.
      await stormApi.post(`/v1/test_helpers/test_clocks/${stormClockId}/advance`, { frozenTime: new Date(renewal.getTime() - 60 * 60 * 1000).toISOString() });
      await until('the storm\'s clock an hour before the renewal', async () => (await stormApi.get(`/v1/test_helpers/test_clocks/${stormClockId}`)).status === 'ready');
      const sleepsApi = apiOf(kasi.url, sleeps.keys);
      const price = await sleepsApi.post('/v1/prices', { product: { name: 'Bench plan' }, unitAmountCents: 150000, interval: 'month' });
      const sleeper = await sleepsApi.post('/v1/customers', { email: 'sleeps-template@example.com' });
      await makeDefaultCards(knex, [sleeper.id], await seedCards(knex, sleeps.accountId, ['sleeps-template@example.com']));
      sleepTemplate = (await sleepsApi.post('/v1/subscriptions', { customerId: sleeper.id, priceId: price.id })).id as string;

      const since = performance.now();
      yearFigures = await yearOnClock(knex, apiOf(kasi.url, year.keys), year.accountId);
      phase('the year, with its 100 subscriptions made through the API', since);
      await until('the wall-time template paid', async () => (await countOf(knex('subscriptions').where({ id: sleepTemplate, status: 'active' }))) === 1);
    } finally {
      await stopServer(kasi.child);
    }
    const { seconds, paid } = yearFigures;
    const ready = seconds === null ? `not ready within ${YEAR_TIMEOUT_MS / 1000} s` : `ready in ${seconds.toFixed(1)} s`;
    const yearMet = seconds !== null && seconds < 10 && paid === YEAR_SUBSCRIPTIONS * YEAR_MONTHS;
    console.log(`\nbilling: ${YEAR_MONTHS} months over ${YEAR_SUBSCRIPTIONS} subscriptions on one test clock, in one advance: ${ready}, ${paid} renewal invoices paid (target under 10 s, ${YEAR_SUBSCRIPTIONS * YEAR_MONTHS} paid): ${yearMet ? 'met' : 'NOT met'}`);

    // The storm: 9,999 copies of the template on its clock; the service's boot starts their
    // workflows, each of which writes its wait on the clock.
    let since = performance.now();
    await copySubscriptions(knex, stormTemplate, STORM_SUBSCRIPTIONS - 1, 'storm-copy');
    phase(`${STORM_SUBSCRIPTIONS - 1} subscriptions copied`, since);
    since = performance.now();
    kasi = await startServer('servers/kasi.ts', database.env);
    let figures: Storm;
    try {
      const waiting = () => countOf(knex('clock_waits').where({ clock_id: stormClockId, due_at: renewal }));
      await until('the storm\'s workflows waiting on the clock', async () => (await waiting()) === STORM_SUBSCRIPTIONS, 2 * SETTLE_TIMEOUT_MS, 250);
      phase(`Kasi started with ${STORM_SUBSCRIPTIONS} subscriptions on the clock, each waiting`, since);
      figures = await renewalStorm(knex, apiOf(kasi.url, storm.keys), storm.accountId, stormClockId, STORM_SUBSCRIPTIONS, renewal);
    } finally {
      await stopServer(kasi.child);
    }
    const adjusted = await countOf(knex('invoices').where({ account_id: storm.accountId, billing_reason: 'subscription_cycle', discount_cents: 30000, tax_cents: 21073 }).whereNotNull('coupon_id'));
    if (adjusted !== figures.renewed) throw new Error(`${figures.renewed - adjusted} of the storm's renewal invoices lack the coupon's discount or the taxes`);
    // The target counts a renewal once its invoice is paid: 10,000 over the time until the last is.
    // A storm cut short by its bound (at least 10,000 / 300 s) has missed it; what was done by then is printed.
    const n = STORM_SUBSCRIPTIONS.toLocaleString('en');
    const made = figures.lastMade === null ? `${figures.renewed} renewal invoices made within ${figures.elapsed.toFixed(0)} s (${(figures.renewed / figures.elapsed).toFixed(0)} a second)` : `the ${n} renewal invoices made in ${figures.lastMade.toFixed(1)} s (${(STORM_SUBSCRIPTIONS / figures.lastMade).toFixed(0)} a second)`;
    const paidLine = figures.lastPaid === null ? `${figures.paid} paid within ${figures.elapsed.toFixed(0)} s` : `the last paid at ${figures.lastPaid.toFixed(1)} s`;
    const readyLine = figures.ready === null ? 'the clock not yet ready' : `the clock ready at ${figures.ready.toFixed(1)} s`;
    const perSecond = figures.lastPaid === null ? null : STORM_SUBSCRIPTIONS / figures.lastPaid;
    console.log(
      `\nbilling: renewal storm, ${n} subscriptions on one test clock (each with a coupon and two tax rates) renewing at one instant, one advance: ` +
        (perSecond === null ? `not all paid within ${figures.elapsed.toFixed(0)} s` : `${perSecond.toFixed(0)} renewals a second, paid`) +
        ` (${made}; ${paidLine}; ${readyLine}) (target at least 300 a second): ${perSecond !== null && perSecond >= 300 ? 'met' : 'NOT met'}`,
    );

    // The clocks' subscriptions are done with: ended, and any invoice of theirs still open (a storm
    // cut short by its bound) voided, so the service below restarts none of their workflows.
    await knex('subscriptions').whereNotNull('test_clock_id').update({ status: 'canceled', ended_at: new Date() });
    await knex('invoices').whereIn('subscription_id', knex('subscriptions').whereNotNull('test_clock_id').select('id')).where({ status: 'open' }).update({ status: 'void', voided_at: new Date() });
    since = performance.now();
    const heap = await heapPerSleepingSubscription(database, sleepTemplate);
    phase('the sleeping subscriptions', since);
    console.log(`\nbilling: ${(heap.perWorkflow / 1024).toFixed(1)} kB of heap per sleeping subscription workflow with ${heap.open.toLocaleString('en')} open, in the service's process (target at most 8 kB): ${heap.perWorkflow <= 8 * 1024 ? 'met' : 'NOT met'}${gcNote()}`);
    phase('the billing benchmarks', began);
  } finally {
    if (!given) await database.close();
  }
}

if (require.main === module) runAsCommand(() => runBillingBench());
