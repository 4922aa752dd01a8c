// Invoice items, the customer's credit balance and credit notes over HTTP, on test clocks, with the
// cents written out (docs/reference/credit.md): items picked up once by the next invoice (a
// renewal, one made by hand), a balance used at finalisation and never twice, a total below zero
// carried to the balance and used by the next invoice, credit notes on open and paid invoices
// (refund and credit), their numbers, limits and races, and every error.
import assert from 'node:assert/strict';
import type { MerchantKeys } from '../../db/merchants';
import { ik, startApiWithMerchant, type TestApi } from '../support/api';
import { assertMoneyInvariants } from '../support/money-invariants';
import { moveCarriedCredits } from '../../db/migrations/032-invoice-items-and-credit';
import type { ApiError } from '../../domain/errors';
import { payCheckout } from '../../services/checkouts/pay';
import { chargeInvoice } from '../../services/invoices/collect';
import { payAndKeep, serviceDeps } from '../cards/card-flow';
import { absolute } from '../checkouts/hosted-flow';
import { pressContinue } from '../payment-links/link-flow';
import { billingFlow } from './billing-flow';

const START = '2027-02-01T04:30:00.000Z';
const RENEWAL = '2027-03-01T04:30:00.000Z';
/** The sandbox's bank answers a charge made on wall time this long after it is made. */
const BANK_ANSWERS_MS = 5_000;

describe('invoice items, credit balance and credit notes', function () {
  this.timeout(120_000);
  let api: TestApi;
  let keys: MerchantKeys;
  before(async () => ({ api, keys } = await startApiWithMerchant({ startAt: new Date('2027-01-15T04:30:00.000Z') })));
  after(() => api.close());
  const { post, read, advance, customerWithCard, monthly, invoicesOf, chargesOf } = billingFlow(() => ({ api, keys }));
  const send = (path: string, body: unknown, method?: 'DELETE') => api.request(path, { key: keys.sk_test, body, idempotencyKey: ik(), ...(method ? { method } : {}) });
  const refused = async (res: Promise<{ status: number; body: any }>) => {
    const { status, body } = await res;
    return [status, body.reason ?? body.code];
  };
  /** The sandbox's bank answers what it was asked (charges, refunds): the service's time moved on a minute. */
  const bankAnswers = async () => {
    await api.clock.advance(60_000);
    await api.workflows.settle();
  };
  const amounts = (i: any) => ({ total: i.totalCents, applied: i.creditAppliedCents, notes: i.creditNotesCents, due: i.amountDueCents, paid: i.amountPaidCents, status: i.status });
  const balanceOf = async (customerId: string) => (await read(`/v1/customers/${customerId}`)).creditBalanceCents;
  const transactionsOf = async (customerId: string) =>
    (await read(`/v1/customers/${customerId}/balance_transactions`)).data.reverse().map((t: any) => [t.type, t.amountCents, t.endingBalanceCents]);
  /** A customer on a clock at START with a card, subscribed monthly to 150000 cents: the subscription, paid. */
  const subscribed = async (email: string, extra: Record<string, unknown> = {}) => {
    const { clock, customer } = await customerWithCard(email, START, '01/39');
    const sub = await post('/v1/subscriptions', { customerId: customer.id, priceId: (await monthly()).id, ...extra });
    await api.workflows.settle();
    return { clock, customer, sub };
  };

  /** A customer on a clock at START with 40000 of credit, and their invoice of 100000 sent to them: open, 60000 due. */
  const creditUsed = async (email: string) => {
    const clock = await post('/v1/test_helpers/test_clocks', { frozenTime: START });
    const customer = await post('/v1/customers', { email, testClockId: clock.id });
    await post(`/v1/customers/${customer.id}/balance_transactions`, { amountCents: 40000 });
    await post('/v1/invoice_items', { customerId: customer.id, description: 'Design work', unitAmountCents: 100000 });
    const invoice = await post(`/v1/invoices/${(await post('/v1/invoices', { customerId: customer.id })).id}/finalize`);
    assert.deepEqual(amounts(invoice), { total: 100000, applied: 40000, notes: 0, due: 60000, paid: 0, status: 'open' });
    return { customer, invoice };
  };

  describe('invoice items', () => {
    it('an item of the subscription and one of the customer go onto the next renewal, shown by its preview first; deleting one once invoiced: 409 invoice_item_invoiced', async () => {
      const { clock, customer, sub } = await subscribed('items@example.com');
      const setup = await post('/v1/invoice_items', { customerId: customer.id, subscriptionId: sub.id, description: 'Extra seats', unitAmountCents: 12500, quantity: 2 });
      assert.deepEqual(
        { ...setup, id: undefined, createdAt: undefined },
        { object: 'invoice_item', id: undefined, mode: 'test', customerId: customer.id, subscriptionId: sub.id, invoiceId: null, description: 'Extra seats', unitAmountCents: 12500, quantity: 2, amountCents: 25000, discountable: true, createdAt: undefined },
      );
      assert.equal(setup.createdAt, START, 'made in the customer\'s time');
      const loose = await post('/v1/invoice_items', { customerId: customer.id, description: 'Goodwill', unitAmountCents: -5000, discountable: false });
      const dropped = await post('/v1/invoice_items', { customerId: customer.id, description: 'Dropped', unitAmountCents: 999 });
      const deleted = await send(`/v1/invoice_items/${dropped.id}`, undefined, 'DELETE');
      assert.deepEqual([deleted.status, deleted.body.deleted, deleted.body.id], [200, true, dropped.id]);
      assert.equal((await api.request(`/v1/invoice_items/${dropped.id}`, { key: keys.sk_test })).status, 404);

      assert.deepEqual((await read(`/v1/invoice_items?customerId=${customer.id}&pending=true`)).data.map((i: any) => i.id), [loose.id, setup.id]);
      assert.deepEqual((await read(`/v1/invoice_items?subscriptionId=${sub.id}`)).data.map((i: any) => i.id), [setup.id]);
      assert.deepEqual((await read(`/v1/invoice_items/${setup.id}`)).amountCents, 25000);

      const upcoming = await read(`/v1/invoices/upcoming?subscriptionId=${sub.id}`);
      const lines = [['1 × Pro plan', 150000], ['Extra seats', 25000], ['Goodwill', -5000]];
      assert.deepEqual(upcoming.lines.map((l: any) => [l.description, l.amountCents]), lines);
      assert.deepEqual([upcoming.subtotalCents, upcoming.totalCents, upcoming.amountDueCents], [170000, 170000, 170000]);

      await advance(clock.id, '2027-03-02T00:00:00.000Z');
      const [, renewal] = await invoicesOf(sub.id);
      assert.deepEqual(renewal.lines, upcoming.lines, 'the renewal equals its preview');
      assert.deepEqual([renewal.periodStart, renewal.status, renewal.amountPaidCents], [RENEWAL, 'paid', 170000]);
      assert.deepEqual((await chargesOf(renewal.id)).map((c: any) => Number(c.amount_cents)), [170000]);
      assert.deepEqual((await read(`/v1/invoice_items/${setup.id}`)).invoiceId, renewal.id);
      const stored = (await api.knex('invoices').where({ id: renewal.id }).first('lines')).lines;
      assert.deepEqual(stored.map((l: any) => l.discountable), [undefined, undefined, false], 'a coupon discounts the item only if it is discountable');
      assert.deepEqual((await read(`/v1/invoice_items?customerId=${customer.id}&pending=true`)).data, []);
      assert.deepEqual(await refused(send(`/v1/invoice_items/${loose.id}`, undefined, 'DELETE')), [409, 'invoice_item_invoiced']);

      const third = await read(`/v1/invoices/upcoming?subscriptionId=${sub.id}`);
      assert.deepEqual(third.lines.map((l: any) => l.amountCents), [150000], 'taken once');
    });

    it('an item of no subscription goes onto an invoice made by hand; a renewal and an invoice by hand made at once take it once', async () => {
      const { customer } = await customerWithCard('by-hand@example.com', START, '01/39');
      await post('/v1/invoice_items', { customerId: customer.id, description: 'Consulting', unitAmountCents: 40000, quantity: 3 });
      const draft = await post('/v1/invoices', { customerId: customer.id });
      assert.deepEqual([draft.lines.map((l: any) => [l.description, l.quantity, l.unitAmountCents, l.amountCents, l.priceId]), draft.totalCents], [[['Consulting', 3, 40000, 120000, null]], 120000]);

      const { clock, customer: racing, sub } = await subscribed('item-race@example.com');
      const item = await post('/v1/invoice_items', { customerId: racing.id, description: 'Onboarding', unitAmountCents: 30000 });
      await post(`/v1/test_helpers/test_clocks/${clock.id}/advance`, { frozenTime: '2027-03-02T00:00:00.000Z' });
      const byHand = await Promise.all([1, 2].map(() => send('/v1/invoices', { customerId: racing.id })));
      for (let i = 0; (await read(`/v1/test_helpers/test_clocks/${clock.id}`)).status !== 'ready'; i++) {
        assert.ok(i < 1000);
        await api.workflows.settle();
        await new Promise((resolve) => setTimeout(resolve, 10));
      }
      await api.workflows.settle();
      const [, renewal] = await invoicesOf(sub.id);
      const taking = [renewal, ...byHand.map((r) => r.body)].filter((i: any) => i.lines.some((l: any) => l.description === 'Onboarding'));
      assert.equal(taking.length, 1, 'one invoice took the item');
      assert.equal((await read(`/v1/invoice_items/${item.id}`)).invoiceId, taking[0].id);
    });

    it('three deletes of one item at once (each its own Idempotency-Key): one 200, the others 404', async () => {
      const customer = await post('/v1/customers', { email: 'item-deletes@example.com' });
      const item = await post('/v1/invoice_items', { customerId: customer.id, description: 'Dropped', unitAmountCents: 5000 });
      const deletes = await Promise.all([1, 2, 3].map(() => send(`/v1/invoice_items/${item.id}`, undefined, 'DELETE')));
      assert.deepEqual(deletes.map((r) => r.status).sort(), [200, 404, 404]);
    });

    it('refusals: an unknown customer 404, a subscription of another customer 400, an ended one 409 subscription_ended, an amount out of range 400', async () => {
      const { customer, sub } = await subscribed('item-refusals@example.com');
      const other = await post('/v1/customers', { email: 'item-other@example.com' });
      assert.equal((await send('/v1/invoice_items', { customerId: 'cus_000000000000000000000000', description: 'x', unitAmountCents: 1 })).status, 404);
      const foreign = await send('/v1/invoice_items', { customerId: other.id, subscriptionId: sub.id, description: 'x', unitAmountCents: 1 });
      assert.deepEqual([foreign.status, foreign.body.fields[0].path], [400, 'subscriptionId']);
      await post(`/v1/subscriptions/${sub.id}/cancel`);
      assert.deepEqual(await refused(send('/v1/invoice_items', { customerId: customer.id, subscriptionId: sub.id, description: 'x', unitAmountCents: 1 })), [409, 'subscription_ended']);
      assert.equal((await send('/v1/invoice_items', { customerId: customer.id, description: 'x', unitAmountCents: 100000001 })).status, 400);
    });
  });

  describe('credit balance', () => {
    it('an adjustment of 50000 is used by the next renewal (150000 − 50000 = 100000 charged); the transactions list every change', async () => {
      const { clock, customer, sub } = await subscribed('balance@example.com');
      const added = await post(`/v1/customers/${customer.id}/balance_transactions`, { amountCents: 50000, description: 'Goodwill credit' });
      assert.deepEqual(
        [added.object, added.type, added.amountCents, added.endingBalanceCents, added.invoiceId, added.creditNoteId, added.description, added.createdAt],
        ['balance_transaction', 'adjustment', 50000, 50000, null, null, 'Goodwill credit', START],
      );
      assert.equal(await balanceOf(customer.id), 50000);
      const upcoming = await read(`/v1/invoices/upcoming?subscriptionId=${sub.id}`);
      assert.deepEqual(amounts(upcoming), { total: 150000, applied: 50000, notes: 0, due: 100000, paid: 0, status: 'draft' }, 'the preview shows the credit that would apply');

      await advance(clock.id, '2027-03-02T00:00:00.000Z');
      const [, renewal] = await invoicesOf(sub.id);
      assert.deepEqual(amounts(renewal), { total: 150000, applied: 50000, notes: 0, due: 100000, paid: 100000, status: 'paid' });
      assert.deepEqual((await chargesOf(renewal.id)).map((c: any) => Number(c.amount_cents)), [100000]);
      assert.equal(await balanceOf(customer.id), 0);
      assert.deepEqual(await transactionsOf(customer.id), [['adjustment', 50000, 50000], ['applied_to_invoice', -50000, 0]]);
      await assertMoneyInvariants(api.knex, api.clock.now());
    });

    it('a negative adjustment takes credit away; 0 and out of range answer 400', async () => {
      const customer = await post('/v1/customers', { email: 'balance-down@example.com' });
      await post(`/v1/customers/${customer.id}/balance_transactions`, { amountCents: 3000 });
      const taken = await post(`/v1/customers/${customer.id}/balance_transactions`, { amountCents: -5000 });
      assert.deepEqual([taken.amountCents, taken.endingBalanceCents, await balanceOf(customer.id)], [-5000, -2000, -2000]);
      assert.equal((await send(`/v1/customers/${customer.id}/balance_transactions`, { amountCents: 0 })).status, 400);
      assert.equal((await send(`/v1/customers/${customer.id}/balance_transactions`, { amountCents: -100000001 })).status, 400);
      assert.equal((await send('/v1/customers/cus_000000000000000000000000/balance_transactions', { amountCents: 1 })).status, 404);
    });

    it('two invoices finalised at once never use the same credit: a balance of 100000, two invoices of 120000 → 100000 applied in all', async () => {
      const { customer } = await customerWithCard('balance-race@example.com', START, '01/39');
      await post(`/v1/customers/${customer.id}/balance_transactions`, { amountCents: 100000 });
      const drafts = [];
      for (const description of ['First', 'Second']) {
        await post('/v1/invoice_items', { customerId: customer.id, description, unitAmountCents: 120000 });
        drafts.push(await post('/v1/invoices', { customerId: customer.id }));
      }
      const finalized = await Promise.all(drafts.map((d) => send(`/v1/invoices/${d.id}/finalize`, {})));
      assert.deepEqual(finalized.map((r) => r.status), [200, 200]);
      const applied = finalized.map((r) => r.body.creditAppliedCents).sort((a, b) => a - b);
      assert.deepEqual(applied, [0, 100000]);
      assert.deepEqual(finalized.map((r) => r.body.amountDueCents).sort((a, b) => a - b), [20000, 120000]);
      assert.equal(await balanceOf(customer.id), 0);
      assert.deepEqual((await transactionsOf(customer.id)).map((t: any) => t[2]), [100000, 0]);
    });

    it('a finalisation and an adjustment at once: the transactions list in the order the balance moved, the newest one\'s endingBalanceCents the balance', async () => {
      const customer = await post('/v1/customers', { email: 'balance-order@example.com' });
      await post(`/v1/customers/${customer.id}/balance_transactions`, { amountCents: 50000 });
      await post('/v1/invoice_items', { customerId: customer.id, description: 'Design work', unitAmountCents: 80000 });
      const draft = await post('/v1/invoices', { customerId: customer.id });
      // The customer's row held, so the finalisation waits for it first, the adjustment behind it.
      const hold = await api.knex.transaction();
      await hold.raw('select 1 from customers where id = ? for update', [customer.id]);
      /** Until `count` statements wait for a lock on customers. */
      const waiting = async (count: number) => {
        for (let i = 0; (await api.knex.raw("select 1 from pg_stat_activity where wait_event_type = 'Lock' and query like '%customers%'")).rows.length < count; i++) {
          assert.ok(i < 500, `never ${count} waiting`);
          await new Promise((resolve) => setTimeout(resolve, 10));
        }
      };
      const finalizing = send(`/v1/invoices/${draft.id}/finalize`, {});
      await waiting(1);
      const adjusting = send(`/v1/customers/${customer.id}/balance_transactions`, { amountCents: -30000 });
      await waiting(2);
      await hold.rollback();
      const [finalized, adjusted] = await Promise.all([finalizing, adjusting]);
      assert.deepEqual([finalized.status, finalized.body.creditAppliedCents, adjusted.status], [200, 50000, 201]);
      const listed = (await read(`/v1/customers/${customer.id}/balance_transactions`)).data;
      assert.equal(listed[0].endingBalanceCents, await balanceOf(customer.id), 'the newest transaction ends at the balance');
      let balance = 0;
      for (const t of [...listed].reverse()) {
        balance += t.amountCents;
        assert.equal(t.endingBalanceCents, balance, `${t.type} ${t.amountCents}: ends at ${t.endingBalanceCents}, after ${balance - t.amountCents}`);
      }
      assert.deepEqual(await transactionsOf(customer.id), [['adjustment', 50000, 50000], ['applied_to_invoice', -50000, 0], ['adjustment', -30000, -30000]]);
    });

    it('an invoice whose total is below zero is paid at 0, its total goes to the balance (invoice_negative), and the next renewal uses it: 150000 − 30000 = 120000', async () => {
      const { clock, customer, sub } = await subscribed('negative@example.com');
      await post('/v1/invoice_items', { customerId: customer.id, description: 'Refund of overcharge', unitAmountCents: -30000 });
      const draft = await post('/v1/invoices', { customerId: customer.id, collectionMethod: 'charge_automatically' });
      const negative = await post(`/v1/invoices/${draft.id}/finalize`);
      assert.deepEqual(amounts(negative), { total: -30000, applied: 0, notes: 0, due: 0, paid: 0, status: 'paid' });
      assert.deepEqual(await transactionsOf(customer.id), [['invoice_negative', 30000, 30000]]);
      const upcoming = await read(`/v1/invoices/upcoming?subscriptionId=${sub.id}`);
      assert.deepEqual([upcoming.lines.length, upcoming.creditAppliedCents, upcoming.amountDueCents], [1, 30000, 120000], 'no credit line: the balance');

      await advance(clock.id, '2027-03-02T00:00:00.000Z');
      const [, renewal] = await invoicesOf(sub.id);
      assert.deepEqual(amounts(renewal), { total: 150000, applied: 30000, notes: 0, due: 120000, paid: 120000, status: 'paid' });
      assert.deepEqual((await chargesOf(renewal.id)).map((c: any) => Number(c.amount_cents)), [120000]);
      assert.deepEqual(await transactionsOf(customer.id), [['invoice_negative', 30000, 30000], ['applied_to_invoice', -30000, 0]]);
      await assertMoneyInvariants(api.knex, api.clock.now());
    });

    it('voiding an invoice that used credit gives the credit back (an applied_to_invoice of +40000); marking one uncollectible keeps it used', async () => {
      const { customer, invoice } = await creditUsed('balance-void@example.com');
      assert.equal(await balanceOf(customer.id), 0);
      const voided = await post(`/v1/invoices/${invoice.id}/void`);
      assert.equal(voided.status, 'void');
      assert.equal(await balanceOf(customer.id), 40000, 'the credit the voided invoice used is the customer\'s again');
      assert.deepEqual(await transactionsOf(customer.id), [['adjustment', 40000, 40000], ['applied_to_invoice', -40000, 0], ['applied_to_invoice', 40000, 40000]]);

      await post('/v1/invoice_items', { customerId: customer.id, description: 'Hosting', unitAmountCents: 50000 });
      const next = await post(`/v1/invoices/${(await post('/v1/invoices', { customerId: customer.id })).id}/finalize`);
      assert.deepEqual(amounts(next), { total: 50000, applied: 40000, notes: 0, due: 10000, paid: 0, status: 'open' }, 'the credit given back is used once more');
      await post(`/v1/invoices/${next.id}/mark_uncollectible`);
      assert.equal(await balanceOf(customer.id), 0);
    });
  });

  it('migration 032 moves credits carried before (totals below zero, not yet taken) to the balance, each with the balance it left', async () => {
    const customer = await post('/v1/customers', { email: 'carried-credit@example.com' });
    await post(`/v1/customers/${customer.id}/balance_transactions`, { amountCents: 1000 });
    const sources = [await post('/v1/invoices', { customerId: customer.id }), await post('/v1/invoices', { customerId: customer.id })];
    const row = (invoice: any, amountCents: number, at: string) => ({ source_invoice_id: invoice.id, account_id: api.knex.raw('(select account_id from customers where id = ?)', [customer.id]), mode: 'test', customer_id: customer.id, subscription_id: null, amount_cents: amountCents, invoice_id: null, created_at: at });
    await api.knex('carried_amounts').insert([row(sources[0], -30000, '2028-01-01T00:00:00.000Z'), row(sources[1], -20000, '2028-01-02T00:00:00.000Z')]);
    await moveCarriedCredits(api.knex);
    assert.deepEqual(await transactionsOf(customer.id), [['adjustment', 1000, 1000], ['invoice_negative', 30000, 31000], ['invoice_negative', 20000, 51000]]);
    assert.equal(await balanceOf(customer.id), 51000);
    assert.equal((await api.knex('carried_amounts').where({ customer_id: customer.id })).length, 0);
  });

  describe('credit notes', () => {
    /** A subscription sent to the customer (on a clock): its first invoice, open, 150000 due. */
    const openInvoice = async (email: string) => {
      const clock = await post('/v1/test_helpers/test_clocks', { frozenTime: START });
      const customer = await post('/v1/customers', { email, testClockId: clock.id });
      const sub = await post('/v1/subscriptions', { customerId: customer.id, priceId: (await monthly()).id, collectionMethod: 'send_invoice' });
      await api.workflows.settle();
      const [invoice] = await invoicesOf(sub.id);
      assert.deepEqual(amounts(invoice), { total: 150000, applied: 0, notes: 0, due: 150000, paid: 0, status: 'open' });
      return { customer, sub, invoice };
    };

    it('on an open invoice: 50000 lowers what is due to 100000, then 100000 more pays it (CN-000001, CN-000002); one cent more is over its total (400 credit_note_amount)', async () => {
      const { customer, invoice } = await openInvoice('cn-open@example.com');
      const first = await post('/v1/credit_notes', { invoiceId: invoice.id, amountCents: 50000, reason: 'order_change', memo: 'One month at the old price' });
      assert.deepEqual(
        { ...first, id: undefined },
        { object: 'credit_note', id: undefined, mode: 'test', number: 'CN-000001', invoiceId: invoice.id, customerId: customer.id, amountCents: 50000, refundCents: 0, creditCents: 0, refundId: null, reason: 'order_change', memo: 'One month at the old price', createdAt: START },
      );
      assert.deepEqual(amounts(await read(`/v1/invoices/${invoice.id}`)), { total: 150000, applied: 0, notes: 50000, due: 100000, paid: 0, status: 'open' });
      const event = await api.knex('events').where({ type: 'credit_note.created' }).whereRaw("data->>'id' = ?", [first.id]).first();
      assert.deepEqual(event.data, first);

      const second = await post('/v1/credit_notes', { invoiceId: invoice.id, amountCents: 100000 });
      assert.equal(second.number, 'CN-000002');
      assert.deepEqual(amounts(await read(`/v1/invoices/${invoice.id}`)), { total: 150000, applied: 0, notes: 150000, due: 0, paid: 0, status: 'paid' });
      assert.deepEqual(await refused(send('/v1/credit_notes', { invoiceId: invoice.id, amountCents: 1 })), [400, 'credit_note_amount']);
      assert.deepEqual((await read(`/v1/credit_notes?invoiceId=${invoice.id}`)).data.map((n: any) => n.number), ['CN-000002', 'CN-000001']);
      assert.deepEqual((await read(`/v1/credit_notes?customerId=${customer.id}`)).data.length, 2);
      assert.equal((await read(`/v1/credit_notes/${first.id}`)).amountCents, 50000);
      assert.equal(await balanceOf(customer.id), 0);
    });

    it('on an open invoice that used credit: what goes beyond the amount due returns to the balance; one leaving 500 due is paid by carry-over', async () => {
      const { customer, invoice } = await creditUsed('cn-credit-used@example.com');
      const note = await post('/v1/credit_notes', { invoiceId: invoice.id, amountCents: 80000 });
      assert.deepEqual([note.refundCents, note.creditCents], [0, 20000]);
      assert.deepEqual(amounts(await read(`/v1/invoices/${invoice.id}`)), { total: 100000, applied: 40000, notes: 80000, due: 0, paid: 0, status: 'paid' });
      assert.deepEqual(await transactionsOf(customer.id), [['adjustment', 40000, 40000], ['applied_to_invoice', -40000, 0], ['credit_note', 20000, 20000]]);

      await post('/v1/invoice_items', { customerId: customer.id, description: 'Hosting', unitAmountCents: 50000 });
      const small = await post(`/v1/invoices/${(await post('/v1/invoices', { customerId: customer.id })).id}/finalize`);
      assert.deepEqual(amounts(small), { total: 50000, applied: 20000, notes: 0, due: 30000, paid: 0, status: 'open' });
      await post('/v1/credit_notes', { invoiceId: small.id, amountCents: 29500 });
      assert.deepEqual(amounts(await read(`/v1/invoices/${small.id}`)), { total: 50000, applied: 20000, notes: 29500, due: 500, paid: 500, status: 'paid' });
      const next = await post('/v1/invoices', { customerId: customer.id });
      assert.deepEqual(next.lines.map((l: any) => l.amountCents), [500], 'the 500 cents carried onto the next invoice');
    });

    it('on a paid invoice: refunded to the card by default (the refund workflow), or credited to the balance; the card takes back at most what it paid, the rest to the balance', async () => {
      const { customer, sub } = await subscribed('cn-paid@example.com');
      const [invoice] = await invoicesOf(sub.id);
      assert.deepEqual(amounts(invoice), { total: 150000, applied: 0, notes: 0, due: 150000, paid: 150000, status: 'paid' });
      const refund = await post('/v1/credit_notes', { invoiceId: invoice.id, amountCents: 40000, reason: 'product_unsatisfactory' });
      assert.deepEqual([refund.refundCents, refund.creditCents, typeof refund.refundId], [40000, 0, 'string']);
      await bankAnswers();
      const settled = await read(`/v1/refunds/${refund.refundId}`);
      assert.deepEqual([settled.status, settled.amountCents], ['succeeded', 40000]);
      assert.deepEqual(amounts(await read(`/v1/invoices/${invoice.id}`)), { total: 150000, applied: 0, notes: 40000, due: 110000, paid: 150000, status: 'paid' });

      const credit = await post('/v1/credit_notes', { invoiceId: invoice.id, amountCents: 30000, creditCents: 30000 });
      assert.deepEqual([credit.refundCents, credit.creditCents, credit.refundId], [0, 30000, null]);
      const split = await post('/v1/credit_notes', { invoiceId: invoice.id, amountCents: 20000, refundCents: 15000 });
      assert.deepEqual([split.refundCents, split.creditCents], [15000, 5000]);
      assert.deepEqual(await transactionsOf(customer.id), [['credit_note', 30000, 30000], ['credit_note', 5000, 35000]]);
      assert.deepEqual(await refused(send('/v1/credit_notes', { invoiceId: invoice.id, amountCents: 1000, refundCents: 600, creditCents: 600 })), [400, 'credit_note_amount']);
      assert.deepEqual(amounts(await read(`/v1/invoices/${invoice.id}`)), { total: 150000, applied: 0, notes: 90000, due: 60000, paid: 150000, status: 'paid' });
      await bankAnswers();
      const payment = await api.knex('payments').where({ invoice_id: invoice.id }).first();
      assert.deepEqual([payment.status, Number(payment.refunded_cents)], ['partially_refunded', 55000]);

      // A second paid invoice that used 35000 of credit: its card paid 115000, so a credit note of its whole total refunds 115000 and credits 35000 back.
      await advance((await read(`/v1/customers/${customer.id}`)).testClockId, '2027-03-02T00:00:00.000Z');
      const [, renewal] = await invoicesOf(sub.id);
      assert.deepEqual(amounts(renewal), { total: 150000, applied: 35000, notes: 0, due: 115000, paid: 115000, status: 'paid' });
      const whole = await post('/v1/credit_notes', { invoiceId: renewal.id, amountCents: 150000 });
      assert.deepEqual([whole.refundCents, whole.creditCents], [115000, 35000]);
      assert.equal(await balanceOf(customer.id), 35000);
      assert.deepEqual(amounts(await read(`/v1/invoices/${renewal.id}`)), { total: 150000, applied: 35000, notes: 150000, due: 0, paid: 115000, status: 'paid' });
      await bankAnswers();
      assert.equal((await read(`/v1/refunds/${whole.refundId}`)).status, 'succeeded');
    });

    it('a refund made before through POST /v1/refunds counts against the total: after 100000 refunded of 150000, a credit note of 150000 is refused (400 credit_note_amount), one of 50000 refunds the 50000 left', async () => {
      const { customer, sub } = await subscribed('cn-after-refund@example.com');
      const [invoice] = await invoicesOf(sub.id);
      const payment = await api.knex('payments').where({ invoice_id: invoice.id }).first('id');
      const refund = await post('/v1/refunds', { paymentId: payment.id, amountCents: 100000 });
      assert.equal(refund.amountCents, 100000);
      const whole = await send('/v1/credit_notes', { invoiceId: invoice.id, amountCents: 150000 });
      assert.deepEqual([whole.status, whole.body.reason], [400, 'credit_note_amount'], 'else 100000 would be credited to the balance on top of the 100000 refunded');
      const credited = await send('/v1/credit_notes', { invoiceId: invoice.id, amountCents: 50001, creditCents: 50001 });
      assert.deepEqual([credited.status, credited.body.reason], [400, 'credit_note_amount']);
      const rest = await post('/v1/credit_notes', { invoiceId: invoice.id, amountCents: 50000 });
      assert.deepEqual([rest.refundCents, rest.creditCents], [50000, 0]);
      await bankAnswers();
      assert.deepEqual(amounts(await read(`/v1/invoices/${invoice.id}`)), { total: 150000, applied: 0, notes: 50000, due: 100000, paid: 150000, status: 'paid' });
      const refunded = await api.knex('payments').where({ id: payment.id }).first('status', 'refunded_cents');
      assert.deepEqual([refunded.status, Number(refunded.refunded_cents)], ['refunded', 150000]);
      assert.equal(await balanceOf(customer.id), 0, 'the customer got back what they paid, no more');
      await assertMoneyInvariants(api.knex, api.clock.now());
    });

    it('credit notes issued at once never pass the total: two of 100000 on 150000, one 201 and one 400 credit_note_amount, numbered without gaps', async () => {
      const { invoice } = await openInvoice('cn-race@example.com');
      const before = Number((await api.knex('credit_note_numbers').first('last_number'))?.last_number ?? 0);
      const answers = await Promise.all([1, 2].map(() => send('/v1/credit_notes', { invoiceId: invoice.id, amountCents: 100000 })));
      assert.deepEqual(answers.map((r) => r.status).sort(), [201, 400]);
      assert.equal(answers.find((r) => r.status === 400)!.body.reason, 'credit_note_amount');
      assert.equal(answers.find((r) => r.status === 201)!.body.number, `CN-${String(before + 1).padStart(6, '0')}`);
      assert.deepEqual(amounts(await read(`/v1/invoices/${invoice.id}`)), { total: 150000, applied: 0, notes: 100000, due: 50000, paid: 0, status: 'open' });
    });

    it('refusals: a draft, void or uncollectible invoice 409 invoice_not_open; 0 cents 400 credit_note_amount; refundCents on an open invoice 400; an unknown invoice 404', async () => {
      const { customer, invoice } = await openInvoice('cn-refusals@example.com');
      const draft = await post('/v1/invoices', { customerId: customer.id });
      assert.deepEqual(await refused(send('/v1/credit_notes', { invoiceId: draft.id, amountCents: 100 })), [409, 'invoice_not_open']);
      assert.deepEqual(await refused(send('/v1/credit_notes', { invoiceId: invoice.id, amountCents: 0 })), [400, 'credit_note_amount']);
      const open = await send('/v1/credit_notes', { invoiceId: invoice.id, amountCents: 100, refundCents: 100 });
      assert.deepEqual([open.status, open.body.fields[0].path], [400, 'refundCents']);
      assert.equal((await send('/v1/credit_notes', { invoiceId: 'in_000000000000000000000000', amountCents: 100 })).status, 404);
      await post(`/v1/invoices/${invoice.id}/mark_uncollectible`);
      assert.deepEqual(await refused(send('/v1/credit_notes', { invoiceId: invoice.id, amountCents: 100 })), [409, 'invoice_not_open']);
      await post(`/v1/invoices/${draft.id}/void`);
      assert.deepEqual(await refused(send('/v1/credit_notes', { invoiceId: draft.id, amountCents: 100 })), [409, 'invoice_not_open']);
    });

    it('the invoice\'s email and hosted page show the credit applied and the credit notes below the total, in English, Sinhala and Tamil', async () => {
      const expected = {
        en: ['Credit applied from your balance: -Rs. 400.00', 'Credit notes: -Rs. 100.00'],
        si: ['ඔබගේ ශේෂයෙන් යෙදූ බැර: -Rs. 400.00', 'බැර සටහන්: -Rs. 100.00'],
        ta: ['உங்கள் இருப்பிலிருந்து பயன்படுத்திய வரவு: -Rs. 400.00', 'வரவுக் குறிப்புகள்: -Rs. 100.00'],
      } as const;
      for (const locale of ['en', 'si', 'ta'] as const) {
        const clock = await post('/v1/test_helpers/test_clocks', { frozenTime: START });
        const customer = await post('/v1/customers', { email: `cn-words-${locale}@example.com`, locale, testClockId: clock.id });
        await post(`/v1/customers/${customer.id}/balance_transactions`, { amountCents: 40000 });
        await post('/v1/invoice_items', { customerId: customer.id, description: 'Design work', unitAmountCents: 100000 });
        const invoice = await post(`/v1/invoices/${(await post('/v1/invoices', { customerId: customer.id })).id}/finalize`);
        const email = await api.knex('emails').where({ object_id: invoice.id, kind: 'invoice' }).first('text', 'html');
        assert.ok(email.text.includes(expected[locale][0]), email.text);
        assert.ok(!email.text.includes(expected[locale][1]), 'no credit notes, no line');
        await post('/v1/credit_notes', { invoiceId: invoice.id, amountCents: 10000 });
        const page = await api.request(new URL(invoice.hostedInvoiceUrl).pathname);
        const rows = [...page.text.matchAll(/<tr><th scope="row" colspan="2">([^<]*)<\/th><td class="num">([^<]*)<\/td><\/tr>/g)].map((m) => `${m[1]}: ${m[2]}`);
        assert.deepEqual(rows.slice(1), expected[locale], `${locale}: ${rows.join(' | ')}`);
      }
    });

    it('a checkout of the invoice\'s page made before a credit note is refused at Pay (the card not charged); the page then offers the new amount', async () => {
      const clock = await post('/v1/test_helpers/test_clocks', { frozenTime: START });
      const customer = await post('/v1/customers', { email: 'cn-page@example.com', name: 'Nimal Perera', testClockId: clock.id });
      const sub = await post('/v1/subscriptions', { customerId: customer.id, priceId: (await monthly()).id });
      await api.workflows.settle();
      const [invoice] = await invoicesOf(sub.id);
      const press = async () => {
        const pressed = await pressContinue(invoice.hostedInvoiceUrl);
        assert.equal(pressed.status, 303, pressed.text);
        return absolute(api, pressed.location!);
      };
      const before = await press();
      await post('/v1/credit_notes', { invoiceId: invoice.id, amountCents: 50000 });
      const pay = payCheckout(serviceDeps(api), { checkoutId: new URL(before).pathname.split('/').pop()!, customer: null, cardConsent: null, locale: 'en', merchantName: 'Lanka Tea House', returnUrl: () => api.url }, { account_id: (await api.knex('invoices').where({ id: invoice.id }).first('account_id')).account_id, mode: 'test' });
      await assert.rejects(pay, (err: ApiError) => err.reason === 'order_invalid');
      const after = await press();
      assert.notEqual(after, before);
      const amountsAsked = await api.knex('payments').where({ invoice_id: invoice.id }).orderBy('id').select('amount_cents', 'status');
      assert.deepEqual(amountsAsked.map((p: any) => [Number(p.amount_cents), p.status]), [[150000, 'requires_payment_method'], [100000, 'requires_payment_method']]);
    });

    it('a credit note and a charge of the invoice at once: the charge is for the amount due after the credit note, or the credit note waits (409); the money holds', async () => {
      for (let round = 0; round < 4; round++) {
        const email = `cn-race-charge-${round}@example.com`;
        const customer = await post('/v1/customers', { email });
        await payAndKeep(api, keys, { email, expiry: '01/39' });
        const sub = await post('/v1/subscriptions', { customerId: customer.id, priceId: (await monthly()).id, collectionMethod: 'send_invoice' });
        const invoiceId = sub.latestInvoiceId;
        const [paid, noted] = await Promise.all([send(`/v1/invoices/${invoiceId}/pay`, {}), send('/v1/credit_notes', { invoiceId, amountCents: 50000 })]);
        assert.equal(paid.status, 200, paid.text);
        const [charge] = await api.knex('payments').where({ invoice_id: invoiceId }).select('amount_cents');
        if (noted.status === 201) assert.equal(Number(charge.amount_cents), 100000, 'the credit note came first: the charge is for what is left');
        else assert.deepEqual([noted.status, noted.body.reason, Number(charge.amount_cents)], [409, 'invoice_payment_pending', 150000]);
        await bankAnswers();
        const invoice = await read(`/v1/invoices/${invoiceId}`);
        assert.deepEqual([invoice.status, invoice.amountPaidCents], ['paid', Number(charge.amount_cents)]);
      }
      await assertMoneyInvariants(api.knex, api.clock.now());
    });

    it('a credit note committed between its collection reading the invoice and writing the charge: the charge is for the amount due after it, not before', async () => {
      const email = 'cn-collection-race@example.com';
      const customer = await post('/v1/customers', { email });
      await payAndKeep(api, keys, { email, expiry: '01/39' });
      const sub = await post('/v1/subscriptions', { customerId: customer.id, priceId: (await monthly()).id, collectionMethod: 'send_invoice' });
      const invoiceId = sub.latestInvoiceId;
      /** Waits until a statement of the server's matching `like` waits for a lock. */
      const blockedOn = async (like: string) => {
        for (let i = 0; ; i++) {
          assert.ok(i < 500, `never blocked on ${like}`);
          const { rows } = await api.knex.raw("select 1 from pg_stat_activity where wait_event_type = 'Lock' and query like ?", [like]);
          if (rows.length > 0) return;
          await new Promise((resolve) => setTimeout(resolve, 10));
        }
      };
      // The credit note is held (by its number's counter) once it has locked the invoice, so the collection reads the invoice as it was, then waits for the note.
      const hold = await api.knex.transaction();
      const account = await api.knex('invoices').where({ id: invoiceId }).first('account_id', 'mode');
      await hold.raw('insert into credit_note_numbers (account_id, mode, last_number) values (?, ?, 0) on conflict (account_id, mode) do update set last_number = credit_note_numbers.last_number', [account.account_id, account.mode]);
      const noting = send('/v1/credit_notes', { invoiceId, amountCents: 50000 });
      await blockedOn('%credit_note_numbers%');
      const charging = chargeInvoice(serviceDeps(api), invoiceId, 1);
      // Its write (prepared statements run in one batch) waits for the invoice's lock.
      await blockedOn(`%execute kasi_x_%${invoiceId}%`);
      await hold.rollback();
      const [noted] = await Promise.all([noting, charging]);
      assert.equal(noted.status, 201, noted.text);
      assert.deepEqual(amounts(await read(`/v1/invoices/${invoiceId}`)).due, 100000);
      const charges = await api.knex('payments').where({ invoice_id: invoiceId }).select('amount_cents');
      assert.deepEqual(charges.map((c: any) => Number(c.amount_cents)), [100000], 'the card is charged what the invoice owes after the credit note');
      // The bank answers; the attempt asked about again, as its collection would.
      await api.clock.advance(BANK_ANSWERS_MS + api.clock.toleranceMs);
      assert.equal((await chargeInvoice(serviceDeps(api), invoiceId, 1)).kind, 'paid');
      assert.deepEqual(amounts(await read(`/v1/invoices/${invoiceId}`)), { total: 150000, applied: 0, notes: 50000, due: 100000, paid: 100000, status: 'paid' });
      await assertMoneyInvariants(api.knex, api.clock.now());
    });

    it('while a charge of an open invoice is with the processor: 409 invoice_payment_pending; once it has paid the invoice, the credit note refunds', async () => {
      const email = 'cn-in-flight@example.com';
      const customer = await post('/v1/customers', { email });
      await payAndKeep(api, keys, { email, expiry: '01/39' });
      const sub = await post('/v1/subscriptions', { customerId: customer.id, priceId: (await monthly()).id, collectionMethod: 'send_invoice' });
      const pending = await send(`/v1/invoices/${sub.latestInvoiceId}/pay`, {});
      assert.deepEqual([pending.status, pending.body.status], [200, 'open']);
      assert.deepEqual(await refused(send('/v1/credit_notes', { invoiceId: sub.latestInvoiceId, amountCents: 50000 })), [409, 'invoice_payment_pending']);
      await api.clock.advance(BANK_ANSWERS_MS + api.clock.toleranceMs);
      await api.workflows.settle();
      assert.equal((await read(`/v1/invoices/${sub.latestInvoiceId}`)).status, 'paid');
      const note = await post('/v1/credit_notes', { invoiceId: sub.latestInvoiceId, amountCents: 50000 });
      assert.deepEqual([note.refundCents, note.creditCents], [50000, 0]);
      await bankAnswers();
      await assertMoneyInvariants(api.knex, api.clock.now());
    });
  });
});
