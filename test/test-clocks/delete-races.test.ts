// Deleting a test clock while its customer's invoice is being paid: the delete ends the
// subscription and voids its open invoices, the payment takes the invoice and then its
// subscription. Round after round, both at once: each answers what the spec allows (never a 500
// from the two waiting for each other), and the money holds (test/support/money-invariants.ts).
import assert from 'node:assert/strict';
import type { MerchantKeys } from '../../db/merchants';
import { ik, startApiWithMerchant, type TestApi } from '../support/api';
import { assertMoneyInvariants } from '../support/money-invariants';
import { billingFlow } from '../invoices/billing-flow';

const ROUNDS = 16;

describe('test clocks: deleted while an invoice of theirs is paid', function () {
  this.timeout(120_000);
  let api: TestApi;
  let keys: MerchantKeys;
  before(async () => ({ api, keys } = await startApiWithMerchant({ startAt: new Date('2027-01-15T04:30:00.000Z') })));
  after(() => api.close());
  const { post, customerWithCard, monthly } = billingFlow(() => ({ api, keys }));

  it(`${ROUNDS} rounds of pay and delete at once: allowed answers only, then the money holds`, async () => {
    const price = await monthly();
    for (let round = 0; round < ROUNDS; round++) {
      const { clock, customer } = await customerWithCard(`clock${round}@example.com`, '2027-02-01T04:30:00.000Z', '01/39');
      const subscription = await post('/v1/subscriptions', { customerId: customer.id, priceId: price.id, collectionMethod: 'send_invoice' });
      await api.workflows.settle();
      const pay = api.request(`/v1/invoices/${subscription.latestInvoiceId}/pay`, { key: keys.sk_test, body: {}, idempotencyKey: ik() });
      const remove = api.request(`/v1/test_helpers/test_clocks/${clock.id}`, { key: keys.sk_test, method: 'DELETE', idempotencyKey: ik() });
      const [paid, removed] = await Promise.all(round % 2 === 0 ? [pay, remove] : [pay, remove].reverse()).then((answers) => (round % 2 === 0 ? answers : answers.reverse()));
      assert.equal(removed!.status, 200, `delete: ${removed!.text}`);
      assert.ok(paid!.status === 200 || (paid!.status === 409 && ['invoice_not_open', 'subscription_ended'].includes(paid!.body.reason)), `pay: ${paid!.status} ${paid!.text}`);
      await api.workflows.settle();
    }
    // Money that arrived for an invoice the delete voided is refunded once the payment has settled.
    for (let i = 0; i < 3; i++) {
      await api.clock.advance(60_000);
      await api.workflows.settle();
    }
    await assertMoneyInvariants(api.knex, api.clock.now());
  });
});
