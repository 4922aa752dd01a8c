// Crash safety of a renewal storm: the service, run as `npm start` runs it (one process, the
// embedded engine, over Postgres), with N customers on one test clock, each with a kept card as
// their default and a monthly subscription, all active. The clock is advanced three months (three
// renewal instants, N renewals each) and the process is killed (SIGKILL) in the middle of the
// second instant, some of its invoices paid and some not. A new process on the same database goes
// on advancing the clock to its target (DESIGN.md: "An advance once answered survives a crash"),
// and then every period's invoice exists once, is paid, and was charged once: one payment and one
// charge in the sandbox processor's own table per invoice, for its total (the processor's reference
// is the payment's, and the payment is written once per invoice and attempt), one invoice.paid.
// The kill must fall inside the storm: renewals committed before it and after the restart.
import assert from 'node:assert/strict';
import path from 'node:path';
import type { Knex } from 'knex';
import { connect } from '../../db/connection';
import { createMerchant, type MerchantKeys } from '../../db/merchants';
import { updateAccount } from '../../db/accounts';
import { PROJECT_ROOT } from '../../workers/temporal-dev-server';
import { ik, TEST_SECRET_KEY } from '../support/api';
import { Child } from '../support/child-process';
import { freshDatabase, type TestDatabase } from '../support/database';
import { remoteApi } from '../support/remote-api';
import { payAndKeep, type HostedApi } from '../cards/card-flow';

const ARTIFACTS = path.join(PROJECT_ROOT, 'test-artifacts', 'subscriptions-crash');
/**
 * Customers on the clock: enough that each renewal instant takes the service seconds (about five
 * on an idle 2-core machine), few enough that the whole test takes about 40 s there (setting up
 * one customer over the hosted pages is most of it). KASI_CRASH_CUSTOMERS to change it.
 */
const N = Number(process.env.KASI_CRASH_CUSTOMERS ?? 150);
/** Customers set up at once over HTTP. */
const SETUP_CONCURRENCY = 8;
const PRICE_CENTS = 150000;
// Next January (within the two years a clock may be set to), so the periods are written out.
const YEAR = new Date().getUTCFullYear() + 1;
const START = `${YEAR}-01-15T04:30:00.000Z`;
/** The renewal instants the advance passes: three periods after the first. */
const RENEWALS = [`${YEAR}-02-15T04:30:00.000Z`, `${YEAR}-03-15T04:30:00.000Z`, `${YEAR}-04-15T04:30:00.000Z`];
const TARGET = `${YEAR}-04-20T00:00:00.000Z`;
/** Killed once this many cycle invoices are paid: the first instant's all, and half the second's. */
const KILL_AT_PAID = Math.floor(1.5 * N);

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Probes until it answers something, or fails saying what it waited for. */
async function until<T>(what: string, timeoutMs: number, probe: () => Promise<T | undefined>, everyMs = 100): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await sleep(everyMs);
  }
}

/** Runs `task` for 0..n-1, `width` at a time. */
async function inParallel(n: number, width: number, task: (i: number) => Promise<void>): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: width }, async () => {
      while (next < n) await task(next++);
    }),
  );
}

describe('a renewal storm survives SIGKILL: after a restart every invoice is paid exactly once', function () {
  this.timeout(180_000);
  let database: TestDatabase | undefined;
  let knex: Knex | undefined;
  let first: Child | undefined;
  let second: Child | undefined;
  let keys: MerchantKeys;
  const killAll = () => {
    for (const child of [first, second]) if (child?.running) child.process.kill('SIGKILL');
  };
  const env = (url: string) => ({
    DATABASE_URL: url,
    HOST: '127.0.0.1',
    PORT: '0',
    LOG_LEVEL: 'warn',
    RATE_LIMIT_PER_MINUTE: '1000000',
    KASI_SECRET_KEY: TEST_SECRET_KEY,
  });
  /** Where the clock, its waits, the subscriptions, invoices and charges stand: for failure messages. */
  const state = async (clockId: string) => {
    const counts = async (table: string, columns: string[], where: Record<string, unknown> = {}) =>
      ((await knex!(table).where(where).groupBy(columns).select(columns).count({ n: '*' }).orderBy(columns)) as Record<string, unknown>[])
        .map((r) => `${columns.map((c) => (r[c] instanceof Date ? (r[c] as Date).toISOString() : String(r[c]))).join(' ')}: ${r.n}`)
        .join(', ');
    const clock = await knex!('test_clocks').where({ id: clockId }).first('frozen_time', 'advancing_to');
    return [
      `clock at ${clock?.frozen_time?.toISOString()} advancing to ${clock?.advancing_to?.toISOString() ?? null}`,
      `waits: ${await counts('clock_waits', ['due_at'], { clock_id: clockId })}`,
      `waits due at the clock's time, by workflow and its invoice's status: ${(
        (await knex!('clock_waits as w')
          .join('test_clocks as c', 'c.id', 'w.clock_id')
          .leftJoin('invoices as i', (on) => on.on('w.workflow_id', '=', knex!.raw("'invoice/' || i.id")))
          .where('w.clock_id', clockId)
          .whereRaw('w.due_at <= c.frozen_time')
          .groupByRaw("split_part(w.workflow_id, '/', 1), i.status")
          .select(knex!.raw("split_part(w.workflow_id, '/', 1) as kind"), 'i.status')
          .count({ n: '*' })) as { kind: string; status: string | null; n: string }[]
      )
        .map((r) => `${r.kind} ${r.status}: ${r.n}`)
        .join(', ')}`,
      `subscriptions: ${await counts('subscriptions', ['status', 'current_period_end'])}`,
      `invoices: ${await counts('invoices', ['billing_reason', 'period_start', 'status'])}`,
      `invoice payments: ${await counts('payments', ['invoice_attempt', 'status'])}`,
      `processor charges: ${await counts('sandbox_charges', ['status'])}`,
    ].join('\n        ');
  };
  const start = async (name: string): Promise<{ child: Child; api: HostedApi }> => {
    const child = new Child(name, 'start', env(database!.url), ARTIFACTS);
    const url = (await child.waitForLine(/^listening on (http:\S+)/, 60_000))[1]!;
    return { child, api: remoteApi(url, knex!) };
  };

  before(async function () {
    this.timeout(60_000);
    process.once('exit', killAll);
    database = await freshDatabase();
    knex = connect(database.url, 4);
  });

  after(async function () {
    this.timeout(60_000);
    if (this.test?.parent?.tests.some((t) => t.state === 'failed')) console.log(`    the processes' output: ${ARTIFACTS}`);
    await Promise.all([first?.stop(), second?.stop()]);
    process.off('exit', killAll);
    await knex?.destroy();
    await database?.drop();
  });

  // The killed workflows of invoices paid just before the kill leave their clock waits behind: the
  // advance, finding nothing moving, wakes them again and drops the waits of those no longer running.
  it(`N = ${N} monthly subscriptions on one clock, killed in the middle of the second of three renewal instants: every period invoiced once, paid, charged once`, async () => {
    const began = Date.now();
    let api: HostedApi;
    ({ child: first, api } = await start('first'));
    const { account, keys: made } = await createMerchant(knex!, { name: 'Lanka Tea House', now: new Date() });
    await updateAccount(knex!, account.id, { status: 'active' }, new Date());
    keys = made;
    const post = async (route: string, body: unknown = {}) => {
      const res = await api.request(route, { key: keys.sk_test, body, idempotencyKey: ik('crash') });
      assert.ok(res.status < 300, `${route}: ${res.status} ${res.text}`);
      return res.body;
    };
    const clockStatus = async () => (await api.request(`/v1/test_helpers/test_clocks/${clock.id}`, { key: keys.sk_test })).body;

    // N customers on one clock, each with a card kept as their default and a monthly subscription.
    const clock = await post('/v1/test_helpers/test_clocks', { frozenTime: START, name: 'renewal storm' });
    const price = await post('/v1/prices', { product: { name: 'Pro plan' }, unitAmountCents: PRICE_CENTS, interval: 'month' });
    const subscriptionIds: string[] = [];
    await inParallel(N, SETUP_CONCURRENCY, async (i) => {
      const email = `storm-${i}@example.com`;
      const customer = await post('/v1/customers', { email, name: `Customer ${i}`, testClockId: clock.id });
      const { card } = await payAndKeep(api, keys, { email, amountCents: 10000 });
      assert.ok(card, `customer ${i}'s card was kept`);
      const subscription = await post('/v1/subscriptions', { customerId: customer.id, priceId: price.id });
      assert.equal(subscription.collectionMethod, 'charge_automatically');
      subscriptionIds.push(subscription.id);
    });
    const defaults = await knex!('customers').whereIn('id', knex!('subscriptions').select('customer_id')).whereNotNull('default_card_id').count({ n: '*' });
    assert.equal(Number(defaults[0]!.n), N, 'every customer has a default card');
    await until(`all ${N} subscriptions active`, 30_000, async () => {
      const rows = (await knex!('subscriptions').groupBy('status').select('status').count({ n: '*' })) as { status: string; n: string }[];
      return rows.length === 1 && rows[0]!.status === 'active' && Number(rows[0]!.n) === N ? true : undefined;
    });
    const setUp = Date.now();
    console.log(`      ${N} customers set up in ${((setUp - began) / 1000).toFixed(1)} s`);

    // The storm: three renewal instants, N renewals each; killed once half the second's are paid.
    const cycle = () => knex!('invoices').where({ billing_reason: 'subscription_cycle' });
    const paidCycles = async () => Number((await cycle().clone().where({ status: 'paid' }).count({ n: '*' }))[0]!.n);
    const advanced = await post(`/v1/test_helpers/test_clocks/${clock.id}/advance`, { frozenTime: TARGET });
    assert.equal(advanced.status, 'advancing');
    const advanceBegan = Date.now();
    const total = N * RENEWALS.length;
    const seenAtKill = await until('half the second instant paid, to kill the service', 60_000, async () => {
      const paid = await paidCycles();
      if (paid >= total) throw new Error(`the advance finished (${paid} of ${total} paid) before the kill: raise N`);
      return paid >= KILL_AT_PAID ? paid : undefined;
    }, 5);
    first.process.kill('SIGKILL');
    assert.equal(await first.exited, null, 'killed, not exited');
    assert.equal(first.process.signalCode, 'SIGKILL');
    const killedAfterMs = Date.now() - advanceBegan;
    console.log(`      killed ${(killedAfterMs / 1000).toFixed(1)} s into the advance, ${seenAtKill} of ${total} cycle invoices seen paid`);

    // What the killed process had done, committed.
    const atKill = {
      invoices: Number((await cycle().clone().count({ n: '*' }))[0]!.n),
      paid: await paidCycles(),
      charges: Number((await knex!('sandbox_charges').count({ n: '*' }))[0]!.n),
      clock: await knex!('test_clocks').where({ id: clock.id }).first('frozen_time', 'advancing_to'),
    };
    assert.ok(atKill.paid >= seenAtKill && atKill.paid > 0, 'renewals were paid before the kill');
    assert.ok(atKill.invoices < total, `some renewals were left for after the kill: ${atKill.invoices} of ${total} invoiced`);
    const stateAtKill = await state(clock.id);
    assert.ok(atKill.clock.advancing_to !== null, 'the clock was still advancing when killed');

    // A new process on the same database: the clock goes on to its target.
    ({ child: second, api } = await start('second'));
    const restartedAt = Date.now();
    const ready = await until('the clock ready after the restart', 60_000, async () => {
      const c = await clockStatus();
      return c.status === 'ready' ? c : undefined;
    }, 200).catch(async (err: Error) => {
      throw new Error(`${err.message}; at the kill:\n        ${stateAtKill}\n      now:\n        ${await state(clock.id)}`);
    });
    assert.equal(ready.frozenTime, TARGET);
    const finished = Date.now();

    // Every period's invoice, once per subscription.
    const rows = (await knex!('invoices')
      .whereIn('subscription_id', subscriptionIds)
      .select('id', 'subscription_id', 'billing_reason', 'period_start', 'status', 'total_cents', 'amount_due_cents', 'amount_paid_cents', 'attempt_count', 'created_at')) as any[];
    const perPeriod = new Map<string, any[]>();
    for (const row of rows) {
      const key = `${row.subscription_id} ${row.billing_reason} ${row.period_start.toISOString()}`;
      perPeriod.set(key, [...(perPeriod.get(key) ?? []), row]);
    }
    const expected = subscriptionIds.flatMap((id) => [`${id} subscription_create ${START}`, ...RENEWALS.map((at) => `${id} subscription_cycle ${at}`)]);
    const missing = expected.filter((key) => !perPeriod.has(key));
    const duplicated = [...perPeriod].filter(([, invoices]) => invoices.length > 1).map(([key, invoices]) => `${key} x${invoices.length}`);
    const unexpected = [...perPeriod.keys()].filter((key) => !expected.includes(key));
    assert.deepEqual({ missing, duplicated, unexpected }, { missing: [], duplicated: [], unexpected: [] });
    assert.equal(rows.length, N * (1 + RENEWALS.length));

    // Every one paid, in full, on its first attempt.
    const notPaid = rows.filter((r) => r.status !== 'paid' || Number(r.amount_paid_cents) !== Number(r.total_cents) || Number(r.total_cents) !== PRICE_CENTS || r.attempt_count !== 1);
    assert.deepEqual(
      notPaid.slice(0, 5).map((r) => [r.id, r.billing_reason, r.status, Number(r.total_cents), Number(r.amount_paid_cents), r.attempt_count]),
      [],
      `${notPaid.length} invoices not paid in full once`,
    );

    // Each charged once: one payment (succeeded, for the total), one charge at the processor.
    const payments = (await knex!('payments').whereIn('invoice_id', rows.map((r) => r.id)).select('id', 'invoice_id', 'invoice_attempt', 'status', 'amount_cents', 'attempts')) as any[];
    const charges = (await knex!('sandbox_charges').select('reference', 'status', 'amount_cents')) as any[];
    const chargesByReference = new Map<string, any[]>();
    for (const c of charges) {
      const paymentId = c.reference.replace(/\.\d+$/, '');
      chargesByReference.set(paymentId, [...(chargesByReference.get(paymentId) ?? []), c]);
    }
    const paymentsOf = new Map<string, any[]>();
    for (const p of payments) paymentsOf.set(p.invoice_id, [...(paymentsOf.get(p.invoice_id) ?? []), p]);
    const chargedWrong: string[] = [];
    for (const row of rows) {
      const mine = paymentsOf.get(row.id) ?? [];
      const processorCharges = mine.flatMap((p) => chargesByReference.get(p.id) ?? []);
      const approved = processorCharges.filter((c) => c.status === 'approved');
      const ok =
        mine.length === 1 &&
        mine[0].status === 'succeeded' &&
        mine[0].invoice_attempt === 1 &&
        Number(mine[0].amount_cents) === Number(row.total_cents) &&
        processorCharges.length === 1 &&
        approved.length === 1 &&
        Number(approved[0].amount_cents) === Number(row.total_cents) &&
        approved[0].reference === `${mine[0].id}.${mine[0].attempts}`;
      if (!ok) chargedWrong.push(`${row.id} (${row.billing_reason} ${row.period_start.toISOString()}): payments ${JSON.stringify(mine.map((p) => [p.id, p.invoice_attempt, p.status]))}, processor charges ${JSON.stringify(processorCharges.map((c) => [c.reference, c.status]))}`);
    }
    assert.deepEqual(chargedWrong.slice(0, 5), [], `${chargedWrong.length} invoices not charged exactly once`);
    // And the processor charged nothing else: every one of its charges is an invoice's.
    assert.equal(charges.length, rows.length, 'one processor charge per invoice, none besides');
    assert.ok(charges.length > atKill.charges, 'charges were made after the restart');

    // Nothing lost on the way: one invoice.paid per invoice, every subscription active in its last period.
    const paidEvents = (await knex!('events').where({ type: 'invoice.paid' }).select(knex!.raw("data->>'id' as id"))) as { id: string }[];
    const paidEventCounts = new Map<string, number>();
    for (const e of paidEvents) paidEventCounts.set(e.id, (paidEventCounts.get(e.id) ?? 0) + 1);
    const eventsWrong = rows.filter((r) => paidEventCounts.get(r.id) !== 1).map((r) => `${r.id}: ${paidEventCounts.get(r.id) ?? 0}`);
    assert.deepEqual(eventsWrong.slice(0, 5), [], `${eventsWrong.length} invoices without exactly one invoice.paid`);
    const subscriptions = (await knex!('subscriptions').whereIn('id', subscriptionIds).select('status', 'current_period_start')) as any[];
    assert.deepEqual(
      [...new Set(subscriptions.map((s) => `${s.status} ${s.current_period_start.toISOString()}`))],
      [`active ${RENEWALS.at(-1)}`],
    );
    // The second process renewed too: the kill fell in the storm, not after it.
    const invoicedInAll = Number((await cycle().clone().count({ n: '*' }))[0]!.n);
    assert.ok(invoicedInAll > atKill.invoices, `renewals after the restart: ${atKill.invoices} invoiced before the kill, ${invoicedInAll} in all`);

    console.log(
      `      at the kill ${atKill.paid} of ${total} cycle invoices paid, ${atKill.invoices} invoiced, the clock at ${atKill.clock.frozen_time.toISOString()}; ` +
        `ready ${((finished - restartedAt) / 1000).toFixed(1)} s after the restart`,
    );
  });
});
