// An incomplete subscription's workflow waits for its expiry 23 hours on; once the first invoice is
// paid, the payment tells it, and it waits for its next step instead (invoice.upcoming before the
// renewal): no 23-hour timer is left pending on an active subscription for an operator to find in
// the Temporal UI, on wall time (a workflow timer) or on a test clock (its clock wait).
import assert from 'node:assert/strict';
import { temporal } from '@temporalio/proto';
import type { MerchantKeys } from '../../db/merchants';
import { INCOMPLETE_EXPIRY_MS, UPCOMING_NOTICE_DAYS } from '../../domain/subscription-rules';
import { startApiWithMerchant, type TestApi } from '../support/api';
import { CARD_NUMBER, DETAILS, payAndKeep } from '../cards/card-flow';
import { get, payAtProcessor } from '../checkouts/hosted-flow';
import { payerCheckout } from '../payment-links/link-flow';
import { billingFlow, DAY } from '../invoices/billing-flow';

const { EventType } = temporal.api.enums.v1;

/** When each timer still pending in the history fires (ms since the epoch). */
function pendingTimers(history: temporal.api.history.v1.IHistory): number[] {
  const started = new Map<string, number>();
  for (const event of history.events ?? []) {
    if (event.eventType === EventType.EVENT_TYPE_TIMER_STARTED) {
      const { timerId, startToFireTimeout } = event.timerStartedEventAttributes!;
      const startedAt = Number(event.eventTime!.seconds) * 1000 + Math.floor((event.eventTime!.nanos ?? 0) / 1e6);
      started.set(timerId!, startedAt + Number(startToFireTimeout!.seconds) * 1000 + Math.floor((startToFireTimeout!.nanos ?? 0) / 1e6));
    }
    if (event.eventType === EventType.EVENT_TYPE_TIMER_FIRED) started.delete(event.timerFiredEventAttributes!.timerId!);
    if (event.eventType === EventType.EVENT_TYPE_TIMER_CANCELED) started.delete(event.timerCanceledEventAttributes!.timerId!);
  }
  return [...started.values()];
}

describe('a subscription\'s workflow once its first invoice is paid', function () {
  this.timeout(120_000);
  let api: TestApi;
  let keys: MerchantKeys;

  before(async () => ({ api, keys } = await startApiWithMerchant({ startAt: new Date('2027-01-31T04:30:00.000Z') })));
  after(() => api.close());

  const { post, read, customerWithCard, monthly } = billingFlow(() => ({ api, keys }));
  const upcomingAt = (subscription: { currentPeriodEnd: string }) => Date.parse(subscription.currentPeriodEnd) - UPCOMING_NOTICE_DAYS * DAY;

  it('on wall time: its pending timer is the next step\'s, not the 23-hour expiry', async () => {
    const email = 'wall-first@example.com';
    const customer = await post('/v1/customers', { email, name: 'Nimal Perera' });
    await payAndKeep(api, keys, { email });
    assert.notEqual((await read(`/v1/customers/${customer.id}`)).defaultCardId, null);
    const created = await post('/v1/subscriptions', { customerId: customer.id, priceId: (await monthly()).id });
    assert.equal(created.status, 'incomplete');
    const workflowId = `subscription/${created.id}`;
    await api.clock.advance(60_000);
    const active = await read(`/v1/subscriptions/${created.id}`);
    assert.equal(active.status, 'active', JSON.stringify(await api.knex('payments').where({ invoice_id: active.latestInvoiceId })));
    const timers = pendingTimers(await api.workflows.history(workflowId));
    assert.deepEqual(timers.map((at) => new Date(at).toISOString()), [new Date(upcomingAt(active)).toISOString()]);
    assert.ok(!timers.includes(Date.parse(created.createdAt) + INCOMPLETE_EXPIRY_MS));
    await api.workflows.replay(workflowId);
  });

  it('on a test clock: its clock wait is the next step\'s, not the 23-hour expiry', async () => {
    const start = '2027-03-31T04:30:00.000Z';
    const { customer } = await customerWithCard('clock-first@example.com', start, '01/39');
    const created = await post('/v1/subscriptions', { customerId: customer.id, priceId: (await monthly()).id });
    await api.workflows.settle();
    const active = await read(`/v1/subscriptions/${created.id}`);
    assert.equal(active.status, 'active');
    const waits = await api.knex('clock_waits').where({ workflow_id: `subscription/${created.id}` }).pluck('due_at');
    assert.deepEqual(waits.map((at: Date) => at.toISOString()), [new Date(upcomingAt(active)).toISOString()]);
  });

  it('its first invoice paid as it is made (a credit covers it): active at once, its workflow started on the next step', async () => {
    const customer = await post('/v1/customers', { email: 'credit-first@example.com' });
    const created = await post('/v1/subscriptions', { customerId: customer.id, priceId: (await monthly()).id, addInvoiceItems: [{ description: 'Welcome credit', unitAmountCents: -150000 }] });
    assert.deepEqual([created.status, (await read(`/v1/invoices/${created.latestInvoiceId}`)).status], ['active', 'paid']);
    await api.workflows.settle();
    assert.deepEqual(pendingTimers(await api.workflows.history(`subscription/${created.id}`)), [upcomingAt(created)]);
  });

  it('paid on its page (no card on file): the same', async () => {
    const email = 'page-first@example.com';
    const customer = await post('/v1/customers', { email, name: 'Nimal Perera' });
    const created = await post('/v1/subscriptions', { customerId: customer.id, priceId: (await monthly()).id });
    const workflowId = `subscription/${created.id}`;
    await api.workflows.settle();
    assert.deepEqual(pendingTimers(await api.workflows.history(workflowId)), [Date.parse(created.createdAt) + INCOMPLETE_EXPIRY_MS], 'unpaid, it waits for its expiry');
    const checkoutUrl = await payerCheckout(api, created.checkoutUrl);
    await get(await payAtProcessor(api, checkoutUrl, { number: CARD_NUMBER, expiry: '01/39', cvv: '100' }, { ...DETAILS, email, saveCard: 'yes' }));
    await api.workflows.settle();
    const active = await read(`/v1/subscriptions/${created.id}`);
    assert.equal(active.status, 'active');
    assert.deepEqual(pendingTimers(await api.workflows.history(workflowId)), [upcomingAt(active)]);
  });
});
