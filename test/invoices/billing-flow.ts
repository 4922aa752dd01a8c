// Billing on test clocks through the API, as a merchant drives it (no browser): clocks, customers
// with a kept card, the monthly price, advancing a clock until it is ready, and reading what was
// billed and charged. Shared by the collection tests over HTTP and the hosted invoice page's
// browser tests.
import assert from 'node:assert/strict';
import type { MerchantKeys } from '../../db/merchants';
import { ik, type TestApi } from '../support/api';
import { payAndKeep } from '../cards/card-flow';

export const DAY = 24 * 60 * 60 * 1000;
/** `iso` plus `plusMs`, as the API writes times. */
export const at = (iso: string, plusMs = 0) => new Date(Date.parse(iso) + plusMs).toISOString();

/**
 * The helpers over one suite's service and merchant, read through `of` when called (a suite sets
 * them in its `before`).
 */
export function billingFlow(of: () => { api: TestApi; keys: MerchantKeys }) {
  const post = async (path: string, body: unknown = {}) => {
    const { api, keys } = of();
    const res = await api.request(path, { key: keys.sk_test, body, idempotencyKey: ik() });
    assert.ok(res.status < 300, `${path}: ${res.text}`);
    return res.body;
  };
  const read = async (path: string) => {
    const { api, keys } = of();
    return (await api.request(path, { key: keys.sk_test })).body;
  };

  /** Advances the clock to `frozenTime` and waits until it is ready and what happened has settled. */
  const advance = async (clockId: string, frozenTime: string) => {
    await post(`/v1/test_helpers/test_clocks/${clockId}/advance`, { frozenTime });
    await untilReady(clockId);
  };

  /** Waits until the clock's advance is done and what happened has settled. */
  const untilReady = async (clockId: string) => {
    const { api } = of();
    for (let i = 0; (await read(`/v1/test_helpers/test_clocks/${clockId}`)).status !== 'ready'; i++) {
      assert.ok(i < 1000, 'the clock becomes ready');
      await api.workflows.settle();
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
    await api.workflows.settle();
  };

  /** A customer on a new clock at `start`, with a card kept (its expiry) as their default. */
  const customerWithCard = async (email: string, start: string, expiry: string) => {
    const { api, keys } = of();
    const clock = await post('/v1/test_helpers/test_clocks', { frozenTime: start });
    const customer = await post('/v1/customers', { email, name: 'Nimal Perera', testClockId: clock.id });
    const { card } = await payAndKeep(api, keys, { email, expiry });
    return { clock, customer, card };
  };

  /** A new monthly price of Rs. 1,500.00 (150000 cents). */
  const monthly = () => post('/v1/prices', { product: { name: 'Pro plan' }, unitAmountCents: 150000, interval: 'month' });

  /** The subscription's invoices, oldest first. */
  const invoicesOf = async (subscriptionId: string) => (await read(`/v1/invoices?subscriptionId=${subscriptionId}`)).data.reverse();

  /** The invoice's merchant-initiated charges (one payment per attempt), in attempt order. */
  const chargesOf = async (invoiceId: string) =>
    of().api.knex('payments').where({ invoice_id: invoiceId }).whereNotNull('invoice_attempt').orderBy('invoice_attempt').select('invoice_attempt', 'status', 'amount_cents');

  /** The processor's charges (the sandbox's, made without the customer) for the invoice's payments. */
  const processorChargesOf = async (invoiceId: string) => {
    const { knex } = of().api;
    const payments: string[] = await knex('payments').where({ invoice_id: invoiceId }).pluck('id');
    return knex('sandbox_charges').whereIn('reference', payments.map((id) => `${id}.1`)).orderBy('created_at').select('reference', 'status', 'amount_cents');
  };

  /** A subscription paid on a good card, whose customer then keeps a 07/39 card (the new default). */
  const declining = async (email: string, start: string) => {
    const { api, keys } = of();
    const { clock, customer } = await customerWithCard(email, start, '01/39');
    const subscription = await post('/v1/subscriptions', { customerId: customer.id, priceId: (await monthly()).id });
    await api.workflows.settle();
    assert.equal((await read(`/v1/subscriptions/${subscription.id}`)).status, 'active');
    const { card } = await payAndKeep(api, keys, { email, expiry: '07/39' });
    assert.equal((await read(`/v1/customers/${customer.id}`)).defaultCardId, card.id);
    return { clock, customer, subscription, card };
  };

  return { post, read, advance, untilReady, customerWithCard, monthly, invoicesOf, chargesOf, processorChargesOf, declining };
}
