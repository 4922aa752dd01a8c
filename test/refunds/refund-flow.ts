// Payments to refund, made as a customer makes them: a checkout paid on the hosted pages over
// HTTP (test/checkouts/hosted-flow.ts), back on the return page, so its payment has succeeded.
import assert from 'node:assert/strict';
import type { MerchantKeys } from '../../db/merchants';
import { ik, type TestApi } from '../support/api';
import { get, payAtProcessor } from '../checkouts/hosted-flow';

/** Approved, and its refunds succeed once the payment has settled. */
export const APPROVED = { number: '4111111111111111', expiry: '01/39', cvv: '100' };
/** Approved too, but the sandbox fails every refund of it (docs/reference/refunds.md). */
export const REFUNDS_FAIL = { ...APPROVED, expiry: '09/39' };

export const CUSTOMER = { name: 'Nimal Perera', email: 'nimal@example.com' };

/** A checkout of `amountCents` paid with `card`: its payment, `succeeded`, and when it was paid. */
export async function paidPayment(api: TestApi, keys: MerchantKeys, amountCents: number, card = APPROVED): Promise<any> {
  const checkout = (await api.request('/v1/checkouts', { key: keys.sk_test, idempotencyKey: ik(), body: { amountCents, description: 'Tea', customer: CUSTOMER } })).body;
  await get(await payAtProcessor(api, checkout.url, card));
  const payment = (await api.request(`/v1/payments/${checkout.payment.id}`, { key: keys.sk_test })).body;
  assert.equal(payment.status, 'succeeded', JSON.stringify(payment));
  return payment;
}

export function refund(api: TestApi, key: string, body: Record<string, unknown>, idempotencyKey = ik()) {
  return api.request('/v1/refunds', { key, body, idempotencyKey });
}
