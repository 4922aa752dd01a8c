// Invoices by hand over HTTP: a draft, finalised (numbered without gaps, per account and mode, under
// concurrency), voided or marked uncollectible, each with its event; the list's filters; the
// customer's time on a test clock.
import assert from 'node:assert/strict';
import type { MerchantKeys } from '../../db/merchants';
import { ik, startApiWithMerchant, type TestApi } from '../support/api';

const DAY = 24 * 60 * 60 * 1000;

describe('invoices API', () => {
  let api: TestApi;
  let keys: MerchantKeys;

  before(async () => ({ api, keys } = await startApiWithMerchant({ startAt: new Date('2027-01-15T04:30:00.000Z') })));
  after(() => api.close());

  const customer = async (email: string, key = keys.sk_test, extra: Record<string, unknown> = {}) =>
    (await api.request('/v1/customers', { key, body: { email, ...extra }, idempotencyKey: ik() })).body;
  const create = (body: unknown, key = keys.sk_test) => api.request('/v1/invoices', { key, body, idempotencyKey: ik() });
  const act = (id: string, action: string, key = keys.sk_test) => api.request(`/v1/invoices/${id}/${action}`, { key, method: 'POST', idempotencyKey: ik() });
  /** What invoice items will put on a draft (they come with adjustments): a line of Rs 1,500. */
  const owe = (id: string) =>
    api.knex('invoices').where({ id }).update({
      lines: JSON.stringify([{ description: 'Consulting, January', quantity: 1, unitAmountCents: 150000, amountCents: 150000, periodStart: null, periodEnd: null, proration: false }]),
      subtotal_cents: 150000, total_cents: 150000, amount_due_cents: 150000,
    });
  const events = async (type: string, id: string) => (await api.knex('events').where({ type }).whereRaw("data->>'id' = ?", [id])).length;

  it('a draft for a customer: every field, invoice.created; 404 for a customer the key cannot see', async () => {
    const { id: customerId } = await customer('ama@example.com');
    const res = await create({ customerId, memo: 'Thank you' });
    assert.equal(res.status, 201, res.text);
    assert.match(res.body.id, /^in_[0-9a-z]{24}$/);
    assert.deepEqual(res.body, {
      object: 'invoice', id: res.body.id, mode: 'test', number: null, status: 'draft', customerId, subscriptionId: null, billingReason: 'manual',
      periodStart: null, periodEnd: null, lines: [], subtotalCents: 0, discountCents: 0, couponId: null, taxCents: 0, taxes: [], totalCents: 0,
      creditAppliedCents: 0, amountDueCents: 0, amountPaidCents: 0, creditNotesCents: 0, collectionMethod: 'send_invoice', dueDate: null, memo: 'Thank you',
      currency: 'LKR', attemptCount: 0, nextAttemptAt: null, lastFailure: null, paidAt: null, hostedInvoiceUrl: null, createdAt: '2027-01-15T04:30:00.000Z',
    });
    assert.equal(await events('invoice.created', res.body.id), 1);
    assert.deepEqual((await api.request(`/v1/invoices/${res.body.id}`, { key: keys.sk_test })).body, res.body);
    assert.equal((await create({ customerId: 'cus_000000000000000000000000' })).status, 404);
    const live = await customer('ama@example.com', keys.sk_live);
    assert.deepEqual([(await create({ customerId: live.id })).status, (await create({ customerId: live.id })).body.reason], [404, 'mode_mismatch']);
    assert.equal((await create({ customerId, daysUntilDue: 366 })).status, 400);
    assert.equal((await create({ customerId, collectionMethod: 'cash' })).status, 400);
  });

  it('finalise: numbered, open, due daysUntilDue on; one that owes nothing is paid at once', async () => {
    const { keys: own } = await api.merchant();
    const { id: customerId } = await customer('kumar@example.com', own.sk_test);
    const draft = (await create({ customerId, daysUntilDue: 14 }, own.sk_test)).body;
    await owe(draft.id);
    const open = (await act(draft.id, 'finalize', own.sk_test)).body;
    assert.deepEqual([open.status, open.number, open.dueDate, open.amountDueCents], ['open', 'INV-000001', new Date(api.clock.now().getTime() + 14 * DAY).toISOString(), 150000]);
    assert.equal(await events('invoice.finalized', draft.id), 1);
    const again = await act(draft.id, 'finalize', own.sk_test);
    assert.deepEqual([again.status, again.body.code], [409, 'CONFLICT']);
    const nothing = (await create({ customerId, collectionMethod: 'charge_automatically' }, own.sk_test)).body;
    const paid = (await act(nothing.id, 'finalize', own.sk_test)).body;
    assert.deepEqual([paid.status, paid.number, paid.dueDate, paid.paidAt], ['paid', 'INV-000002', null, api.clock.now().toISOString()]);
    assert.equal(await events('invoice.paid', nothing.id), 1);
  });

  it('numbers have no gaps under concurrency, per account and mode', async () => {
    const { keys: own } = await api.merchant({ activate: true });
    const { id: customerId } = await customer('busy@example.com', own.sk_test);
    const drafts = [];
    for (let i = 0; i < 20; i++) drafts.push((await create({ customerId }, own.sk_test)).body.id as string);
    const finalised = await Promise.all(drafts.map((id) => act(id, 'finalize', own.sk_test)));
    assert.deepEqual(finalised.map((r) => r.status), Array(20).fill(200));
    assert.deepEqual(finalised.map((r) => r.body.number).sort(), Array.from({ length: 20 }, (_, i) => `INV-${String(i + 1).padStart(6, '0')}`));
    const live = await customer('busy@example.com', own.sk_live);
    const liveDraft = (await create({ customerId: live.id }, own.sk_live)).body;
    assert.equal((await act(liveDraft.id, 'finalize', own.sk_live)).body.number, 'INV-000001', 'live mode counts on its own');
  });

  it('void (a draft or open one) and mark uncollectible (an open one), each once, with their events', async () => {
    const { id: customerId } = await customer('void@example.com');
    const draft = (await create({ customerId })).body;
    assert.equal((await act(draft.id, 'mark_uncollectible')).body.reason, 'invoice_not_open');
    const voided = (await act(draft.id, 'void')).body;
    assert.deepEqual([voided.status, voided.number], ['void', null]);
    assert.deepEqual([(await act(draft.id, 'void')).status, (await act(draft.id, 'void')).body.reason], [409, 'invoice_not_open']);
    assert.equal(await events('invoice.voided', draft.id), 1);
    const open = (await create({ customerId })).body;
    await owe(open.id);
    await act(open.id, 'finalize');
    assert.equal((await act(open.id, 'mark_uncollectible')).body.status, 'uncollectible');
    assert.equal(await events('invoice.marked_uncollectible', open.id), 1);
    assert.equal((await act(open.id, 'void')).body.reason, 'invoice_not_open');
    const other = (await create({ customerId })).body;
    await owe(other.id);
    await act(other.id, 'finalize');
    assert.equal((await act(other.id, 'void')).body.status, 'void');
  });

  it('lists newest first, by customer and by status', async () => {
    const { keys: own } = await api.merchant();
    const a = await customer('a@example.com', own.sk_test);
    const b = await customer('b@example.com', own.sk_test);
    const first = (await create({ customerId: a.id }, own.sk_test)).body;
    const second = (await create({ customerId: b.id }, own.sk_test)).body;
    const third = (await create({ customerId: a.id }, own.sk_test)).body;
    await act(third.id, 'void', own.sk_test);
    const list = async (query: string) => (await api.request(`/v1/invoices${query}`, { key: own.sk_test })).body.data.map((i: { id: string }) => i.id);
    assert.deepEqual(await list(''), [third.id, second.id, first.id]);
    assert.deepEqual(await list(`?customerId=${a.id}`), [third.id, first.id]);
    assert.deepEqual(await list('?status=void'), [third.id]);
    assert.deepEqual(await list(`?customerId=${a.id}&status=draft`), [first.id]);
    assert.equal((await api.request('/v1/invoices?status=late', { key: own.sk_test })).status, 400);
  });

  it('a customer on a test clock: the invoice made and finalised in the clock\'s time', async () => {
    const clock = (await api.request('/v1/test_helpers/test_clocks', { key: keys.sk_test, body: { frozenTime: '2027-06-30T18:30:00.000Z' }, idempotencyKey: ik() })).body;
    const onClock = await customer('clocked@example.com', keys.sk_test, { testClockId: clock.id });
    const draft = (await create({ customerId: onClock.id, daysUntilDue: 1 })).body;
    assert.equal(draft.createdAt, '2027-06-30T18:30:00.000Z');
    await owe(draft.id);
    assert.equal((await act(draft.id, 'finalize')).body.dueDate, '2027-07-01T18:30:00.000Z');
  });
});
