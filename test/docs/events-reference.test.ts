// docs/reference/events.md shows every event type this version sends with a payload taken from a
// run. This drives real flows on a real server until each type has occurred, reads the chosen event
// of each type as GET /v1/events/{id} answers it, and checks the page's example against it: the
// same keys at every level, the same JSON types, and the same values once ids, times and the
// server's address are masked. Every event is also received by a webhook endpoint, whose body must
// be GET /v1/events/{id}'s answer byte for byte. KASI_EVENTS_RECORD=1 writes the run's events into
// the page's examples instead (read what it wrote, then run again without it).
import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import type { MerchantKeys } from '../../db/merchants';
import { NOT_YET_SENT_EVENT_TYPES, SENT_EVENT_TYPES } from '../../domain/event-types';
import { ik, startApi, type TestApi } from '../support/api';
import { get, payAtProcessor } from '../checkouts/hosted-flow';
import { payAndKeep } from '../cards/card-flow';
import { at, billingFlow, DAY } from '../invoices/billing-flow';
import { APPROVED, paidPayment, REFUNDS_FAIL } from '../refunds/refund-flow';
import { payThrough } from '../account/limits';
import { startReceiver, type Receiver } from '../webhooks/receiver';

const PAGE = path.resolve(__dirname, '../../docs/reference/events.md');
const RECORD = process.env.KASI_EVENTS_RECORD === '1';
/** Where the page's examples say the server is (the guides' address). */
const DOC_ORIGIN = 'http://127.0.0.1:3000';
// 10:00 in Colombo on the 20th of January 2026: February's card.expiring sweep and monthly-limit
// reset are a few days ahead.
const START = '2026-01-20T04:30:00.000Z';

interface Example {
  type: string;
  /** The lines of the page between the example's fences. */
  from: number;
  to: number;
  json: string;
}

/** The page's examples: under each `### \`type\`` heading, the first ```json block. */
function pageExamples(markdown: string): Example[] {
  const lines = markdown.split('\n');
  const examples: Example[] = [];
  let type: string | undefined;
  for (let i = 0; i < lines.length; i++) {
    const heading = /^###\s+`([a-z_.]+)`\s*$/.exec(lines[i]!);
    if (heading) type = heading[1];
    else if (/^#{1,3}\s/.test(lines[i]!)) type = undefined;
    else if (type !== undefined && lines[i] === '```json') {
      const end = lines.indexOf('```', i + 1);
      examples.push({ type, from: i + 1, to: end, json: lines.slice(i + 1, end).join('\n') });
      type = undefined;
      i = end;
    }
  }
  return examples;
}

/** The types the page lists as not sent yet: the bullets of its "Not sent yet" section. */
function pageNotYetSent(markdown: string): string[] {
  const section = /^## Not sent yet\n([\s\S]*?)(?=^## |(?![\s\S]))/m.exec(markdown)?.[1] ?? '';
  return [...section.matchAll(/^- `([a-z_.]+)`/gm)].map((m) => m[1]!);
}

/** A value with what differs from run to run masked: ids, times, long hex strings. */
function masked(value: unknown): unknown {
  if (typeof value === 'string') {
    return value
      .replace(/\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z/g, '<time>')
      .replace(/([a-z]+)_[a-z0-9]{16,}/gi, '$1_<id>')
      .replace(/[0-9a-f]{32,}/g, '<hex>');
  }
  if (Array.isArray(value)) return value.map(masked);
  if (value !== null && typeof value === 'object') return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, masked(v)]));
  return value;
}

function jsonType(value: unknown): string {
  return value === null ? 'null' : Array.isArray(value) ? 'array' : typeof value;
}

/** Where `actual` differs from `documented` in keys or JSON types, at every level (array items against the first documented item). */
function shapeProblems(documented: unknown, actual: unknown, at = '$'): string[] {
  if (jsonType(documented) !== jsonType(actual)) return [`${at}: documented ${jsonType(documented)}, sent ${jsonType(actual)}`];
  if (Array.isArray(documented) && Array.isArray(actual)) {
    if (documented.length === 0) return [];
    return actual.flatMap((item, i) => shapeProblems(documented[Math.min(i, documented.length - 1)], item, `${at}[${i}]`));
  }
  if (jsonType(documented) !== 'object') return [];
  const doc = documented as Record<string, unknown>;
  const sent = actual as Record<string, unknown>;
  return [
    ...Object.keys(sent).filter((k) => !(k in doc)).map((k) => `${at}.${k}: sent, not documented`),
    ...Object.keys(doc).filter((k) => !(k in sent)).map((k) => `${at}.${k}: documented, not sent`),
    ...Object.keys(doc).filter((k) => k in sent).flatMap((k) => shapeProblems(doc[k], sent[k], `${at}.${k}`)),
  ];
}

describe('docs/reference/events.md: every event type with a payload from a run', function () {
  this.timeout(600_000);
  let api: TestApi;
  let receiver: Receiver;
  /** Each account's test secret key. */
  const keyOf = new Map<string, string>();
  /** The example chosen for each type: its event id. */
  const chosen = new Map<string, string>();

  let main: { accountId: string; keys: MerchantKeys };
  const flow = billingFlow(() => ({ api, keys: main.keys }));
  const { post, read, advance, customerWithCard, monthly, invoicesOf } = flow;

  /** A merchant whose test events go to the receiver. */
  async function merchant(name: string) {
    const made = await api.merchant({ name, activate: true });
    keyOf.set(made.accountId, made.keys.sk_test);
    const endpoint = await api.request('/v1/webhook_endpoints', { key: made.keys.sk_test, idempotencyKey: ik(), body: { url: receiver.url } });
    assert.equal(endpoint.status, 201, endpoint.text);
    return made;
  }

  /**
   * Chooses the example of `type`: the `nth` event of that type about the object `about` (its
   * `data.id`), or of the account `account`.
   */
  async function choose(type: string, of: { about?: string; account?: string }, nth = 0) {
    const rows = api.knex('events').where({ type }).orderBy([{ column: 'created_at' }, { column: 'id' }]);
    if (of.about !== undefined) void rows.whereRaw("data->>'id' = ?", [of.about]);
    if (of.account !== undefined) void rows.where({ account_id: of.account });
    const found: { id: string }[] = await rows.select('id');
    assert.ok(found[nth], `${type} about ${JSON.stringify(of)} was sent (${found.length} found)`);
    if (!chosen.has(type)) chosen.set(type, found[nth]!.id);
  }

  /** A checkout of `amountCents` for the main merchant, paid (or declined) with `card`. */
  async function payCheckout(amountCents: number, card: { number: string; expiry: string; cvv: string }) {
    const checkout = (
      await api.request('/v1/checkouts', {
        key: main.keys.sk_test,
        idempotencyKey: ik(),
        body: { amountCents, description: 'Ceylon tea, 1 kg', customer: { name: 'Nimal Perera', email: 'nimal@example.com' } },
      })
    ).body;
    await get(await payAtProcessor(api, checkout.url, card));
    await api.workflows.settle();
    return checkout;
  }

  before(async () => {
    receiver = await startReceiver();
    api = await startApi({ startAt: new Date(START) });
    main = await merchant('Lanka Tea House');

    // Payments, refunds and a checkout left unpaid.
    const paid = await paidPayment(api, main.keys, 350_000, APPROVED);
    await choose('payment.succeeded', { about: paid.id });
    const declined = await payCheckout(350_000, { ...APPROVED, expiry: '05/39' });
    await choose('payment.failed', { about: declined.payment.id });
    const refunded = await api.request('/v1/refunds', { key: main.keys.sk_test, idempotencyKey: ik(), body: { paymentId: paid.id, amountCents: 120_000, reason: 'One pot returned' } });
    assert.equal(refunded.status, 201, refunded.text);
    const bounced = await paidPayment(api, main.keys, 250_000, REFUNDS_FAIL);
    const failing = await api.request('/v1/refunds', { key: main.keys.sk_test, idempotencyKey: ik(), body: { paymentId: bounced.id } });
    assert.equal(failing.status, 201, failing.text);
    // The sandbox refunds a payment once it has settled, 5 seconds after it was approved.
    await api.clock.advance(10_000);
    await api.workflows.settle();
    await choose('refund.succeeded', { about: refunded.body.id });
    await choose('refund.failed', { about: failing.body.id });
    const unpaid = (await api.request('/v1/checkouts', { key: main.keys.sk_test, idempotencyKey: ik(), body: { amountCents: 120_000, description: 'Green tea, 500 g' } })).body;
    await api.clock.advance(30 * 60_000 + 1000);
    await api.workflows.settle();
    await choose('checkout.expired', { about: unpaid.id });

    // Cards: one the sandbox will not keep, one expiring next month.
    const notKept = await payAndKeep(api, main.keys, { expiry: '08/39', email: 'sunil@example.com' });
    await choose('card.save_failed', { about: notKept.payment.id });
    const expiring = await payAndKeep(api, main.keys, { expiry: '03/26', email: 'dilani@example.com' });

    // A subscription charged to the card on file, renewing on a card that declines.
    const { clock, customer, card } = await customerWithCard('amali@example.com', START, '01/39');
    await choose('card.saved', { about: card.id });
    const plan = await monthly();
    const subscription = await post('/v1/subscriptions', { customerId: customer.id, priceId: plan.id });
    await api.workflows.settle();
    await choose('customer.subscription.created', { about: subscription.id });
    // A feature of the plan: its subscriber may use it from then on.
    const feature = await post('/v1/entitlements/features', { name: 'API access', lookupKey: 'api-access' });
    await post(`/v1/products/${plan.product.id}/features`, { featureId: feature.id });
    await choose('entitlements.active_entitlement_summary.updated', { account: main.accountId });
    await choose('customer.subscription.updated', { about: subscription.id });
    const [first] = await invoicesOf(subscription.id);
    await choose('invoice.created', { about: first.id });
    await choose('invoice.finalized', { about: first.id });
    await choose('invoice.paid', { about: first.id });
    const note = await post('/v1/credit_notes', { invoiceId: first.id, amountCents: 30_000, reason: 'product_unsatisfactory', memo: 'Two weeks without the service' });
    await choose('credit_note.created', { about: note.id });
    await payAndKeep(api, main.keys, { email: 'amali@example.com', expiry: '07/39' });
    const renewal = at(START, 31 * DAY);
    await advance(clock.id, at(renewal, -3 * DAY));
    await choose('invoice.upcoming', { about: `upcoming_${subscription.id}` });
    await advance(clock.id, renewal);
    const [, renewed] = await invoicesOf(subscription.id);
    await choose('invoice.payment_failed', { about: renewed.id });
    await post(`/v1/invoices/${renewed.id}/void`);
    await choose('invoice.voided', { about: renewed.id });

    // A trial that pauses for want of a card, resumed once one is kept, then canceled.
    const trialClock = await post('/v1/test_helpers/test_clocks', { frozenTime: START });
    const trialCustomer = await post('/v1/customers', { email: 'ruwan@example.com', name: 'Ruwan Jayasuriya', testClockId: trialClock.id });
    const trial = await post('/v1/subscriptions', { customerId: trialCustomer.id, priceId: (await monthly()).id, trialDays: 7, trialEndBehavior: 'pause' });
    await advance(trialClock.id, at(START, 4 * DAY));
    await choose('customer.subscription.trial_will_end', { about: trial.id });
    await advance(trialClock.id, at(START, 7 * DAY));
    await choose('customer.subscription.paused', { about: trial.id });
    await payAndKeep(api, main.keys, { email: 'ruwan@example.com', expiry: '01/39' });
    await post(`/v1/subscriptions/${trial.id}/resume`);
    await api.workflows.settle();
    await choose('customer.subscription.resumed', { about: trial.id });
    await post(`/v1/subscriptions/${trial.id}/cancel`, { feedback: 'too_expensive' });
    await api.workflows.settle();
    await choose('customer.subscription.deleted', { about: trial.id });

    // A subscription whose invoices are sent, one left unpaid past its due date.
    const sentClock = await post('/v1/test_helpers/test_clocks', { frozenTime: START });
    const sentCustomer = await post('/v1/customers', { email: 'kamala@example.com', name: 'Kamala Silva', testClockId: sentClock.id });
    const sent = await post('/v1/subscriptions', { customerId: sentCustomer.id, priceId: (await monthly()).id, collectionMethod: 'send_invoice', daysUntilDue: 7 });
    await api.workflows.settle();
    const [bill] = await invoicesOf(sent.id);
    await choose('invoice.sent', { about: bill.id });
    await advance(sentClock.id, at(START, 8 * DAY));
    await choose('invoice.overdue', { about: bill.id });
    await post(`/v1/invoices/${bill.id}/mark_uncollectible`);
    await choose('invoice.marked_uncollectible', { about: bill.id });
    assert.equal((await read(`/v1/subscriptions/${sent.id}`)).status, 'active');

    // The monthly limit of the starter plan (Rs. 1,000,000), approached, reached, and reset on the 1st.
    const busy = await merchant('Kandy Spice Traders');
    await payThrough(api, busy.keys.sk_test, 80_000_000);
    await choose('account.limit.approaching', { account: busy.accountId });
    await payThrough(api, busy.keys.sk_test, 20_000_000);
    await choose('account.limit.reached', { account: busy.accountId });
    // Past midnight on the 1st in Colombo, and February's card.expiring sweep at 09:00.
    await api.clock.set(new Date('2026-02-01T03:30:00.000Z'));
    await api.workflows.settle();
    await choose('account.limit.reset', { account: busy.accountId });
    await choose('card.expiring', { about: expiring.card.id });
  });

  after(async () => {
    await api?.close();
    await receiver?.close();
  });

  /** Every public event of the run, as GET /v1/events/{id} answers it (the raw text). */
  async function answered(): Promise<Map<string, string>> {
    const rows: { id: string; account_id: string }[] = await api.knex('events').orderBy('id').select('id', 'account_id');
    const texts = new Map<string, string>();
    for (const row of rows) {
      const res = await api.request(`/v1/events/${row.id}`, { key: keyOf.get(row.account_id) });
      assert.equal(res.status, 200, res.text);
      texts.set(row.id, res.text);
    }
    return texts;
  }

  it('every type this version sends occurred, and the page documents exactly those, and lists the rest as not sent yet', async () => {
    const types: string[] = await api.knex('events').distinct('type').pluck('type');
    assert.deepEqual([...types].sort(), [...SENT_EVENT_TYPES].sort(), 'the run sent every type of SENT_EVENT_TYPES and no other');
    assert.deepEqual([...chosen.keys()].sort(), [...SENT_EVENT_TYPES].sort(), 'an example was chosen for each');
    const page = readFileSync(PAGE, 'utf8');
    assert.deepEqual(pageExamples(page).map((e) => e.type), [...SENT_EVENT_TYPES], 'one example per sent type, in SENT_EVENT_TYPES order');
    assert.deepEqual(pageNotYetSent(page), [...NOT_YET_SENT_EVENT_TYPES]);
  });

  it('a webhook carries each event exactly as GET /v1/events/{id} answers it', async () => {
    const texts = await answered();
    await api.workflows.settle();
    const received = await receiver.waitFor(texts.size, 30_000);
    const delivered = new Map(received.map((r) => [JSON.parse(r.body).id as string, r]));
    assert.equal(delivered.size, texts.size, 'each event delivered once');
    for (const [id, text] of texts) {
      const delivery = delivered.get(id);
      assert.ok(delivery, `${id} was delivered`);
      assert.equal(delivery.body, text, `${id}: the webhook body is the API's answer`);
      assert.match(String(delivery.headers['service-signature']), /^t=\d+,v1=[0-9a-f]{64}$/);
      assert.match(String(delivery.headers['service-delivery-id']), /^whd_/);
      assert.equal(delivery.headers['content-type'], 'application/json');
    }
  });

  it('each example has the keys, JSON types and (masked) values of a real event of its type', async () => {
    let page = readFileSync(PAGE, 'utf8');
    const examples = pageExamples(page);
    // From the last, so the line numbers of those before stay true while recording.
    for (const example of [...examples].reverse()) {
      const id = chosen.get(example.type);
      assert.ok(id, `${example.type} occurred in the run`);
      const res = await api.request(`/v1/events/${id}`, { key: keyOf.get((await api.knex('events').where({ id }).first('account_id')).account_id) });
      const actual = JSON.parse(res.text.split(api.url).join(DOC_ORIGIN));
      if (RECORD) {
        const lines = page.split('\n');
        lines.splice(example.from, example.to - example.from, ...JSON.stringify(actual, null, 2).split('\n'));
        page = lines.join('\n');
        continue;
      }
      const documented = JSON.parse(example.json);
      assert.deepEqual(shapeProblems(documented, actual), [], `${example.type}: keys and types`);
      assert.deepEqual(masked(actual), masked(documented), `${example.type}: values (ids, times masked)`);
    }
    if (RECORD) writeFileSync(PAGE, page);
  });
});

describe('the events page checker', () => {
  it('finds a key added, removed or renamed, and a type changed, at any depth', () => {
    const doc = { a: 1, b: { c: 'x', d: [{ e: null }] } };
    assert.deepEqual(shapeProblems(doc, { a: 1, b: { c: 'x', d: [{ e: null }] } }), []);
    assert.deepEqual(shapeProblems(doc, { a: '1', b: { f: 'x', d: [{ e: null }] } }), [
      '$.a: documented number, sent string',
      '$.b.f: sent, not documented',
      '$.b.c: documented, not sent',
    ]);
    assert.deepEqual(shapeProblems(doc, { a: 1, b: { c: 'x', d: [{ e: null }, { e: 3 }] } }), ['$.b.d[1].e: documented null, sent number']);
  });

  it('reads the examples under their type headings and the not-sent list', () => {
    const page = ['# Events', '### `a.b`', 'text', '```json', '{"x": 1}', '```', '## Other', '```json', '{}', '```', '## Not sent yet', '', '- `c.d`: later', '- `e.f`: later', '## After'].join('\n');
    assert.deepEqual(pageExamples(page).map(({ type, json }) => [type, json]), [['a.b', '{"x": 1}']]);
    assert.deepEqual(pageNotYetSent(page), ['c.d', 'e.f']);
  });
});
