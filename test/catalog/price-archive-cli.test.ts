// `kasi price archive <priceId>` as an operator runs it: bin/kasi in a child process, on the same
// database as a running API server.
import assert from 'node:assert/strict';
import { ik, startApiWithMerchant, type TestApi } from '../support/api';
import { runKasi } from '../support/kasi';
import type { MerchantKeys } from '../../db/merchants';

describe('kasi price archive', function () {
  // Each command is a process of its own (tsx compiling the CLI): seconds each under a loaded suite.
  this.timeout(120_000);
  let api: TestApi;
  let keys: MerchantKeys;

  before(async () => ({ api, keys } = await startApiWithMerchant()));
  after(() => api.close());

  it('prints the price archived, the same on a second run; the API shows it archived and the list leaves it out of active ones; an unknown id fails', async () => {
    const price = (await api.request('/v1/prices', { key: keys.sk_test, body: { product: { name: 'Pro plan' }, unitAmountCents: 150000, interval: 'month' }, idempotencyKey: ik() })).body;
    const first = await runKasi({ DATABASE_URL: api.databaseUrl }, 'price', 'archive', price.id, '--json');
    assert.equal(first.code, 0, first.stderr);
    assert.deepEqual(JSON.parse(first.stdout), { ...price, active: false });
    const again = await runKasi({ DATABASE_URL: api.databaseUrl }, 'price', 'archive', price.id, '--json');
    assert.deepEqual(JSON.parse(again.stdout), { ...price, active: false });
    assert.equal((await api.request(`/v1/prices/${price.id}`, { key: keys.sk_test })).body.active, false);
    assert.deepEqual((await api.request('/v1/prices?active=true', { key: keys.sk_test })).body.data, []);
    const unknown = await runKasi({ DATABASE_URL: api.databaseUrl }, 'price', 'archive', 'price_000000000000000000000000');
    assert.deepEqual([unknown.code, unknown.stderr.trim()], [1, 'kasi: No price with id price_000000000000000000000000.']);
    assert.equal((await runKasi({ DATABASE_URL: api.databaseUrl }, 'price', 'archive')).code, 2);
  });
});
