// Usage benchmarks on Kasi as `npm start` runs it:
// - ingestion: POST /v1/meter_events/batch, 100 new events a request (1,000 customers in turn, an
//   identifier each), 10 connections, the median of ROUNDS rounds. Target: at least 10,000 events
//   a second accepted.
// - single events: POST /v1/meter_events (no Idempotency-Key: the identifier deduplicates) against
//   the bare server's insert (bench/versus-bare.ts). Target: at least 50% of its throughput.
// - metered renewals: 1,000 subscriptions on one test clock on a metered per-unit price (one made
//   through the API, 999 copied: bench/subscribers.ts), their period holding 1,000,000 events in
//   all, loaded straight into the database as ingestion keeps them (the events and their buckets);
//   one advance of the clock to the renewal, the invoicing through the real renewal. Target: every
//   renewal invoice made, its usage line billing the period's events, in under a minute.
// Alone: node --import tsx bench/usage.ts
import type { Knex } from 'knex';
import { updateAccount } from '../db/accounts';
import { createMerchant, type MerchantKeys } from '../db/merchants';
import { periodBoundary } from '../domain/billing-periods';
import { COLOMBO_OFFSET_MS } from '../domain/time';
import { runAsCommand } from './command';
import { benchDatabase, type BenchDatabase } from './database';
import { load, startServer, stopServer } from './load';
import { copySubscriptions, makeDefaultCards, seedCards } from './subscribers';
import { measureAgainstBare } from './versus-bare';

const SECONDS = Number(process.env.BENCH_SECONDS ?? 4);
const ROUNDS = 3;
const CONNECTIONS = 10;
const BATCH = 100;
const CUSTOMERS = 1_000;
const RENEWING = 1_000;
const EVENTS_PER_SUBSCRIPTION = 1_000;
const RENEWAL_TIMEOUT_MS = 120_000;

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

async function merchant(knex: Knex, name: string): Promise<{ accountId: string; keys: MerchantKeys }> {
  const { account, keys } = await createMerchant(knex, { name, now: new Date() });
  await updateAccount(knex, account.id, { plan: 'scale' }, new Date());
  return { accountId: account.id, keys };
}

function apiOf(url: string, keys: MerchantKeys) {
  let sent = 0;
  return async (method: 'GET' | 'POST', path: string, body?: unknown): Promise<Json> => {
    const headers: Record<string, string> = { authorization: `Bearer ${keys.sk_test}` };
    if (method === 'POST') Object.assign(headers, { 'content-type': 'application/json', 'idempotency-key': `bench-usage-${process.pid}-${Date.now()}-${++sent}` });
    const res = await fetch(`${url}${path}`, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
    const answer = (await res.json()) as Json;
    if (!res.ok) throw new Error(`${method} ${path}: ${res.status} ${JSON.stringify(answer)}`);
    return answer;
  };
}

/** A meter and `count` customers of the merchant, straight into the database; the customers' ids. */
async function meterAndCustomers(knex: Knex, accountId: string, eventName: string, count: number): Promise<string[]> {
  const now = new Date();
  await knex('meters').insert({ id: `mtr_bench${eventName.replace(/[^a-z]/g, '').padEnd(19, '0').slice(0, 19)}`, account_id: accountId, mode: 'test', display_name: 'Bench calls', event_name: eventName, aggregation: 'sum', active: true, created_at: now });
  const ids = Array.from({ length: count }, (_, i) => `cus_bench${eventName.replace(/[^a-z]/g, '').slice(0, 6).padEnd(6, '0')}${String(i).padStart(13, '0')}`);
  await knex.batchInsert('customers', ids.map((id, i) => ({ id, account_id: accountId, mode: 'test', email: `${eventName}-${i}@example.com`, locale: 'en', credit_balance_cents: 0, created_at: now, updated_at: now })), 500);
  return ids;
}

async function ingestion(database: BenchDatabase): Promise<void> {
  const { accountId, keys } = await merchant(database.knex, 'Bench usage ingestion');
  const customers = await meterAndCustomers(database.knex, accountId, 'bench_call', CUSTOMERS);
  const kasi = await startServer('servers/kasi.ts', database.env);
  let sent = 0;
  const body = () => JSON.stringify({ events: Array.from({ length: BATCH }, () => ({ eventName: 'bench_call', customerId: customers[sent % CUSTOMERS], identifier: `e-${process.pid}-${++sent}` })) });
  const request = { url: `${kasi.url}/v1/meter_events/batch`, method: 'POST' as const, headers: { authorization: `Bearer ${keys.sk_test}`, 'content-type': 'application/json' }, body };
  const rounds: number[] = [];
  let errors = 0;
  try {
    await load('warm-up', { ...request, seconds: 3, connections: CONNECTIONS });
    for (let round = 0; round < ROUNDS; round++) {
      const figures = await load('batches', { ...request, seconds: SECONDS, connections: CONNECTIONS });
      rounds.push(figures.requestsPerSecond * BATCH);
      errors += figures.errors;
      console.log(`  round ${round + 1}: ${(figures.requestsPerSecond * BATCH).toFixed(0)} events/s (p50 ${figures.p50} ms, p99 ${figures.p99} ms, errors ${figures.errors})`);
    }
  } finally {
    await stopServer(kasi.child);
  }
  const median = [...rounds].sort((a, b) => a - b)[Math.floor(rounds.length / 2)]!;
  const kept = Number(((await database.knex('meter_events').where({ account_id: accountId }).count({ n: '*' }).first()) as { n: string }).n);
  console.log(`\nusage: ingestion in batches of ${BATCH}: ${median.toFixed(0)} events a second accepted (median of ${ROUNDS} rounds of ${SECONDS} s, ${CONNECTIONS} connections; ${kept.toLocaleString('en')} events kept, ${errors} errors) (target at least 10,000 a second): ${median >= 10_000 && errors === 0 ? 'met' : 'NOT met'}`);
}

async function singleEvents(database: BenchDatabase): Promise<void> {
  const { accountId, keys } = await merchant(database.knex, 'Bench usage single');
  const customers = await meterAndCustomers(database.knex, accountId, 'bench_single', CUSTOMERS);
  let sent = 0;
  await measureAgainstBare(database, {
    label: 'Kasi POST /v1/meter_events',
    title: 'POST /v1/meter_events (one event: checked, kept by identifier, added to its bucket) vs the bare server',
    request: (url) => ({
      url: `${url}/v1/meter_events`, method: 'POST',
      headers: { authorization: `Bearer ${keys.sk_test}`, 'content-type': 'application/json' },
      body: () => JSON.stringify({ eventName: 'bench_single', customerId: customers[sent % CUSTOMERS], identifier: `s-${process.pid}-${++sent}` }),
    }),
  });
}

/**
 * The period's events of every subscription on the price's meter, as ingestion keeps them: each
 * event, and its usage summed into its day's bucket in Sri Lanka (from the subscription's first
 * billed instant on its first day): spread evenly from the period's start to an hour before its end.
 */
async function loadEvents(knex: Knex, accountId: string, meterId: string, start: Date, end: Date): Promise<number> {
  const bindings = { accountId, meterId, start, spanMs: end.getTime() - 60 * 60 * 1000 - start.getTime() };
  const events = `select s.customer_id, s.created_at as from_t, g.n,
      cast(:start as timestamptz) + (g.n * cast(:spanMs as bigint) / ${EVENTS_PER_SUBSCRIPTION}) * interval '1 millisecond' as ts
    from subscriptions s cross join generate_series(0, ${EVENTS_PER_SUBSCRIPTION - 1}) as g(n)
    where s.account_id = :accountId and s.mode = 'test'`;
  const bucket = `greatest(to_timestamp(floor((extract(epoch from e.ts) * 1000 + ${COLOMBO_OFFSET_MS}) / 86400000) * 86400 - ${COLOMBO_OFFSET_MS / 1000}), e.from_t)`;
  const inserted = await knex.raw(
    `insert into meter_events (account_id, mode, identifier, meter_id, event_name, customer_id, value, timestamp, bucket_start, created_at)
     select :accountId, 'test', e.customer_id || '-' || e.n, :meterId, 'bench_renewal', e.customer_id, 1, e.ts, ${bucket}, now() from (${events}) e`,
    bindings,
  );
  await knex.raw(
    `insert into meter_usage (meter_id, customer_id, bucket_start, value_sum, event_count, last_value, last_timestamp, last_seq)
     select meter_id, customer_id, bucket_start, sum(value), count(*), 1, max(timestamp), max(seq) from meter_events
     where account_id = :accountId and meter_id = :meterId group by meter_id, customer_id, bucket_start`,
    bindings,
  );
  return (inserted as { rowCount: number }).rowCount;
}

async function meteredRenewals(database: BenchDatabase): Promise<void> {
  const { knex } = database;
  const { accountId, keys } = await merchant(knex, 'Bench usage renewals');
  const clockStart = new Date(Math.floor(Date.now() / 1000) * 1000);
  const renewal = periodBoundary(clockStart, { interval: 'month', intervalCount: 1 }, 1);
  let kasi = await startServer('servers/kasi.ts', database.env);
  let clockId: string;
  let meterId: string;
  try {
    const api = apiOf(kasi.url, keys);
    meterId = (await api('POST', '/v1/meters', { displayName: 'API calls', eventName: 'bench_renewal', aggregation: 'sum' })).id as string;
    const price = await api('POST', '/v1/prices', { product: { name: 'Bench API' }, unitAmountCents: 2, interval: 'month', usageType: 'metered', meterId });
    clockId = (await api('POST', '/v1/test_helpers/test_clocks', { frozenTime: clockStart.toISOString(), name: 'Bench metered' })).id as string;
    const customer = await api('POST', '/v1/customers', { email: 'metered-template@example.com', testClockId: clockId });
    await makeDefaultCards(knex, [customer.id], await seedCards(knex, accountId, ['metered-template@example.com']));
    // Metered alone, its first invoice is 0: paid at once.
    const template = (await api('POST', '/v1/subscriptions', { customerId: customer.id, priceId: price.id })).id as string;
    await api('POST', `/v1/test_helpers/test_clocks/${clockId}/advance`, { frozenTime: new Date(renewal.getTime() - 60 * 60 * 1000).toISOString() });
    for (let i = 0; (await api('GET', `/v1/test_helpers/test_clocks/${clockId}`)).status !== 'ready'; i++) {
      if (i > 600) throw new Error('the clock an hour before the renewal: not ready');
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    await stopServer(kasi.child);
    await copySubscriptions(knex, template, RENEWING - 1, 'metered-copy');
  } catch (err) {
    await stopServer(kasi.child);
    throw err;
  }
  let since = performance.now();
  const loaded = await loadEvents(knex, accountId, meterId, clockStart, renewal);
  const buckets = Number(((await knex('meter_usage').where({ meter_id: meterId }).count({ n: '*' }).first()) as { n: string }).n);
  console.log(`  (${loaded.toLocaleString('en')} events loaded into ${buckets.toLocaleString('en')} buckets: ${((performance.now() - since) / 1000).toFixed(1)} s)`);
  kasi = await startServer('servers/kasi.ts', database.env);
  const count = async (sql: string, bindings: readonly Knex.RawBinding[]) => Number(((await knex.raw(sql, bindings)) as { rows: { n: string }[] }).rows[0]!.n);
  let made: number | null = null;
  let paid: number | null = null;
  let billed = 0;
  let elapsed = 0;
  try {
    const api = apiOf(kasi.url, keys);
    for (let i = 0; (await count('select count(*) as n from clock_waits where clock_id = ? and due_at = ?', [clockId, renewal])) < RENEWING; i++) {
      if (i > 1200) throw new Error('the renewing workflows waiting on the clock: not within 120 s');
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    since = performance.now();
    await api('POST', `/v1/test_helpers/test_clocks/${clockId}/advance`, { frozenTime: renewal.toISOString() });
    while (paid === null && elapsed * 1000 < RENEWAL_TIMEOUT_MS) {
      await new Promise((resolve) => setTimeout(resolve, 250));
      elapsed = (performance.now() - since) / 1000;
      const renewed = await count(`select count(*) as n from invoices where account_id = ? and billing_reason = 'subscription_cycle'`, [accountId]);
      if (made === null && renewed >= RENEWING) made = elapsed;
      if (made !== null && (await count(`select count(*) as n from invoices where account_id = ? and billing_reason = 'subscription_cycle' and status = 'paid'`, [accountId])) >= RENEWING) paid = elapsed;
    }
    billed = await count(
      `select coalesce(sum((l->>'quantity')::bigint), 0) as n from invoices i, jsonb_array_elements(i.lines) l where i.account_id = ? and i.billing_reason = 'subscription_cycle'`,
      [accountId],
    );
  } finally {
    await stopServer(kasi.child);
  }
  const all = billed === RENEWING * EVENTS_PER_SUBSCRIPTION;
  console.log(
    `\nusage: renewal of ${RENEWING.toLocaleString('en')} metered subscriptions whose period holds ${(RENEWING * EVENTS_PER_SUBSCRIPTION).toLocaleString('en')} events, one advance: ` +
      (made === null ? `not all invoiced within ${elapsed.toFixed(0)} s` : `all invoiced in ${made.toFixed(1)} s`) +
      `${paid === null ? '' : `, paid by ${paid.toFixed(1)} s`}; ${billed.toLocaleString('en')} events billed on their usage lines (target under 60 s, every event billed): ${made !== null && made < 60 && all ? 'met' : 'NOT met'}`,
  );
}

export async function runUsageBench(given?: BenchDatabase): Promise<void> {
  const database = given ?? (await benchDatabase());
  try {
    await ingestion(database);
    await singleEvents(database);
    await meteredRenewals(database);
  } finally {
    if (!given) await database.close();
  }
}

if (require.main === module) runAsCommand(() => runUsageBench());
