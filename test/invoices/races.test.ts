// The invariants of invoice money under races (docs/reference/invoices.md "One invoice, one payment"): round
// after round, a new invoice (charged to the card on file at once, or sent to the customer) is paid
// on its hosted page over HTTP (the button, Pay, the processor's card page and 3-D Secure), paid
// by POST /v1/invoices/{id}/pay, voided, and its subscription canceled, all at once in a
// different order each round; the bank answers charges made on wall time 5 seconds later, so
// charges are still in flight while the others act. Every answer is one the spec allows, and once
// the processor has answered and the workflows settled, the money over every invoice and payment
// holds (test/support/money-invariants.ts).
import assert from 'node:assert/strict';
import type { MerchantKeys } from '../../db/merchants';
import { ik, startApiWithMerchant, type TestApi } from '../support/api';
import { assertMoneyInvariants } from '../support/money-invariants';
import { payAndKeep } from '../cards/card-flow';
import { absolute, enterCard, get, postPay } from '../checkouts/hosted-flow';
import { pressContinue } from '../payment-links/link-flow';
import { billingFlow } from './billing-flow';
import { random } from '../support/random';

const ROUNDS = 24;
/** The sandbox's bank answers a charge made on wall time this long after it is made. */
const BANK_ANSWERS_MS = 5_000;
const CARD = { number: '5123450000000008', expiry: '01/39', cvv: '100' };

describe('invoices: page pay, pay, void and cancel at once, and the money holds', function () {
  this.timeout(120_000);
  let api: TestApi;
  let keys: MerchantKeys;
  before(async () => ({ api, keys } = await startApiWithMerchant({ startAt: new Date('2027-01-15T04:30:00.000Z') })));
  after(() => api.close());
  const { post, monthly } = billingFlow(() => ({ api, keys }));
  const request = (path: string) => api.request(path, { key: keys.sk_test, body: {}, idempotencyKey: ik() });

  /**
   * The customer pays on the invoice's page, as far as the service lets them: what happened, as
   * `page <step> <status> [reason]` where a step refused, or `page paid at processor`.
   */
  const payOnPage = async (hostedUrl: string): Promise<string> => {
    const pressed = await pressContinue(hostedUrl);
    if (pressed.status !== 303) return `page press ${pressed.status} ${/data-reason="([^"]*)"/.exec(pressed.text)?.[1] ?? ''}`.trim();
    const pay = await postPay(absolute(api, pressed.location!), {});
    if (pay.status !== 303) return `page pay ${pay.status} ${/data-reason="([^"]*)"/.exec(pay.text)?.[1] ?? ''}`.trim();
    await get(await enterCard(api, pay.location!, CARD));
    return 'page paid at processor';
  };

  const answer = async (label: string, res: Promise<{ status: number; body: any }>) => {
    const { status, body } = await res;
    return `${label} ${status}${status === 200 ? '' : ` ${body.reason ?? body.code}`}`;
  };

  it(`${ROUNDS} rounds: every answer allowed; then no invoice paid twice, no money on a closed invoice, no charge left processing`, async () => {
    const email = 'racer@example.com';
    const customer = await post('/v1/customers', { email, name: 'Nimal Perera' });
    await payAndKeep(api, keys, { email, expiry: '01/39' });
    const price = await monthly();
    const next = random(29);
    const seen = new Set<string>();
    for (let round = 0; round < ROUNDS; round++) {
      // One in three charged to the card at once (a charge in flight from the start).
      const collectionMethod = round % 3 === 0 ? 'charge_automatically' : 'send_invoice';
      const sub = await post('/v1/subscriptions', { customerId: customer.id, priceId: price.id, collectionMethod });
      const invoice = (await api.request(`/v1/invoices/${sub.latestInvoiceId}`, { key: keys.sk_test })).body;
      // Each racer with its chance of taking part in a round.
      const racers: [number, () => Promise<string>][] = [
        [0.9, () => payOnPage(invoice.hostedInvoiceUrl)],
        [0.6, () => answer('pay', request(`/v1/invoices/${invoice.id}/pay`))],
        [0.4, () => answer('void', request(`/v1/invoices/${invoice.id}/void`))],
        [0.4, () => answer('cancel', request(`/v1/subscriptions/${sub.id}/cancel`))],
      ];
      // Each racer in this round, or not, after a delay of its own of up to 60 ms.
      const running = racers.filter(([chance]) => next() < chance).map(async ([, race]) => {
        await new Promise((resolve) => setTimeout(resolve, Math.floor(next() * 60)));
        return race();
      });
      for (const outcome of await Promise.all(running)) seen.add(outcome);
      // Now and then the bank answers the charges in flight before the next round.
      if (next() < 0.3) await api.clock.advance(BANK_ANSWERS_MS + api.clock.toleranceMs);
    }
    const allowed = new Set([
      'page paid at processor',
      'page press 200',
      'page press 409 invoice_not_open',
      'page press 409 invoice_payment_pending',
      'page pay 409 invoice_not_open',
      'page pay 409 invoice_payment_pending',
      'pay 200',
      'pay 409 invoice_not_open',
      'pay 409 invoice_payment_pending',
      'void 200',
      'void 409 invoice_not_open',
      'void 409 invoice_payment_pending',
      'cancel 200',
      'cancel 409 subscription_ended',
    ]);
    assert.deepEqual([...seen].filter((outcome) => !allowed.has(outcome)), [], 'answers the spec does not allow');

    // The bank answers everything in flight, the collections and refunds run to their end.
    for (let i = 0; i < 3; i++) {
      await api.clock.advance(BANK_ANSWERS_MS + api.clock.toleranceMs);
      await api.workflows.settle();
    }
    await assertMoneyInvariants(api.knex, api.clock.now());
    // The rounds reached what they are about: charges in flight refused others, and money that
    // arrived for an invoice closed meanwhile was given back.
    for (const refusal of ['pay 409 invoice_payment_pending', 'void 409 invoice_payment_pending']) assert.ok(seen.has(refusal), `no round saw ${refusal}`);
    const automatic = await api.knex('refunds').where('reason', 'like', '%refunded automatically%').count({ n: '*' });
    assert.ok(Number(automatic[0]!.n) > 0, 'no round refunded money for an invoice closed meanwhile');
    const statuses = (await api.knex('invoices').select('status')).map((row: { status: string }) => row.status);
    assert.ok(statuses.includes('paid') && statuses.includes('void'), `invoices both paid and voided: ${statuses.join(', ')}`);
    assert.equal(Number((await api.knex('payments').where({ status: 'processing' }).count({ n: '*' }))[0]!.n), 0, 'nothing left processing');
  });
});
