// The account's billing settings as an operator sets them (`kasi merchant set --proration
// --billing-cycle-anchor`, bin/kasi in a child process on the API server's database) and as the
// merchant reads them (GET /v1/account); the default anchor applies to a create that names none.
import assert from 'node:assert/strict';
import { ik, startApi, type TestApi } from '../support/api';
import { eventually } from '../support/eventually';
import { runKasi, type KasiRun } from '../support/kasi';

describe('kasi merchant set: the billing settings', function () {
  // Each command is a process of its own (tsx compiling the CLI): seconds each under a loaded suite.
  this.timeout(120_000);
  let api: TestApi;
  before(async () => (api = await startApi({ startAt: new Date('2027-01-15T04:30:00.000Z') })));
  after(() => api.close());

  const kasi = (...args: string[]): Promise<KasiRun> => runKasi({ DATABASE_URL: api.databaseUrl }, ...args);

  it('sets proration and the default anchor, shown in GET /v1/account; a create naming no anchor takes the default; a value not in the list is a usage error', async () => {
    const { accountId, keys } = await api.merchant({ name: 'Kandy Greens', activate: true });
    const account = async () => (await api.request('/v1/account', { key: keys.sk_test })).body;
    const before = await account();
    assert.deepEqual([before.proration, before.billingCycleAnchor, before.dunningEnd], ['second', 'now', 'unpaid']);

    const set = await kasi('merchant', 'set', accountId, '--proration', 'day', '--billing-cycle-anchor', 'first_of_month', '--json');
    assert.equal(set.code, 0, set.stderr);
    const shown = JSON.parse(set.stdout);
    assert.deepEqual([shown.id, shown.proration, shown.billingCycleAnchor, shown.dunningEnd], [accountId, 'day', 'first_of_month', 'unpaid']);
    const text = await kasi('merchant', 'set', accountId, '--dunning-end', 'canceled');
    assert.match(text.stdout, /dunning ends canceled, proration by the day, billing cycle anchor first_of_month/);
    // The server hears of the change by a notification from Postgres, milliseconds after it commits.
    const after = await eventually(account, (a) => a.billingCycleAnchor === 'first_of_month');
    assert.deepEqual([after.proration, after.billingCycleAnchor, after.dunningEnd], ['day', 'first_of_month', 'canceled']);

    const price = (await api.request('/v1/prices', { key: keys.sk_test, body: { product: { name: 'Greens box' }, unitAmountCents: 150000, interval: 'month' }, idempotencyKey: ik() })).body;
    const sub = await api.request('/v1/subscriptions', { key: keys.sk_test, body: { customer: { email: 'greens@example.com' }, priceId: price.id }, idempotencyKey: ik() });
    assert.equal(sub.status, 201, sub.text);
    assert.equal(sub.body.billingCycleAnchor, '2027-01-31T18:30:00.000Z', 'midnight on 1 February in Sri Lanka');

    for (const [flag, value] of [['--proration', 'hour'], ['--billing-cycle-anchor', 'first_of_year']]) {
      const refused = await kasi('merchant', 'set', accountId, flag!, value!);
      assert.equal(refused.code, 2);
      assert.match(refused.stderr, new RegExp(`${flag} must be one of`));
    }
    assert.match((await kasi('merchant', 'set', accountId)).stderr, /nothing to set: .*--proration or --billing-cycle-anchor/);
  });
});
