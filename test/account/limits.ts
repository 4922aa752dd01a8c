// What the account tests share: a plan catalogue with small limits (so a few test payments reach
// them), checkouts opened over the API and paid on the hosted pages, and the account.limit.* events.
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Plan } from '../../domain/plans';
import { ik, type TestApi } from '../support/api';
import { get, payAtProcessor, postPay } from '../checkouts/hosted-flow';

/** starter Rs. 1,000 a month (80% is Rs. 800), growth Rs. 10,000, scale Rs. 100,000. */
export const PLANS: Record<string, Plan> = {
  starter: { monthlyLimitCents: 100_000, feeBasisPoints: 330, feeFixedCents: 0 },
  growth: { monthlyLimitCents: 1_000_000, feeBasisPoints: 300, feeFixedCents: 0 },
  scale: { monthlyLimitCents: 10_000_000, feeBasisPoints: 275, feeFixedCents: 0 },
};

/** The service's environment with PLANS as its catalogue (KASI_PLANS_FILE). */
export function withPlans(): Record<string, string> {
  const file = path.join(os.tmpdir(), `kasi-account-plans-${process.pid}.json`);
  writeFileSync(file, JSON.stringify(PLANS));
  return { KASI_PLANS_FILE: file };
}

const CUSTOMER = { name: 'Kamala Silva', email: 'kamala@example.com' };
const APPROVED = { number: '4111111111111111', expiry: '01/39', cvv: '100' };

/** A new checkout's hosted page address. */
export async function openCheckout(api: TestApi, key: string, amountCents: number): Promise<{ id: string; url: string }> {
  const res = await api.request('/v1/checkouts', { key, idempotencyKey: ik('limits'), body: { amountCents, description: 'Ceylon tea' } });
  assert.equal(res.status, 201, res.text);
  return res.body;
}

/** Pay pressed on the hosted page: the payment goes to the processor (`processing`) and counts. */
export async function handOver(api: TestApi, checkoutUrl: string): Promise<{ status: number; text: string }> {
  const pay = await postPay(checkoutUrl, CUSTOMER);
  await api.workflows.settle();
  return pay;
}

/** A checkout paid through to `succeeded`, now. */
export async function payThrough(api: TestApi, key: string, amountCents: number): Promise<void> {
  const checkout = await openCheckout(api, key, amountCents);
  await get(await payAtProcessor(api, checkout.url, APPROVED, CUSTOMER));
  await api.workflows.settle();
  const payment = (await api.request(`/v1/checkouts/${checkout.id}`, { key })).body.payment;
  assert.equal(payment.status, 'succeeded');
}

export interface LimitEvent {
  type: string;
  mode: string;
  created: string;
  usedCents: number;
  periodStart: string;
  data: any;
}

/** The account's account.limit.* events, oldest first, as GET /v1/events shows them. */
export async function limitEvents(api: TestApi, keys: { sk_test: string; sk_live: string }): Promise<LimitEvent[]> {
  const all: LimitEvent[] = [];
  for (const key of [keys.sk_test, keys.sk_live]) {
    for (const type of ['account.limit.approaching', 'account.limit.reached', 'account.limit.reset']) {
      const res = await api.request(`/v1/events?type=${type}&limit=100`, { key });
      assert.equal(res.status, 200, res.text);
      all.push(...res.body.data.map((e: any) => ({ type: e.type, mode: e.mode, created: e.created, usedCents: e.data.monthlyLimit.usedCents, periodStart: e.data.monthlyLimit.periodStart, data: e.data, id: e.id })));
    }
  }
  return all.sort((a: any, b: any) => (a.id < b.id ? -1 : 1)).map(({ id: _id, ...event }: any) => event);
}
