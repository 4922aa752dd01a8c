// The return from the processor: the page asks the checkout's workflow for the attempt's outcome
// with one update and reads the checkout once, instead of polling the database until the workflow
// has applied it (which, every 25 ms, made some 80 queries a second).
import assert from 'node:assert/strict';
import { startApiWithMerchant, ik, type TestApi } from '../support/api';
import type { MerchantKeys } from '../../db/merchants';
import { get, payAtProcessor, postForm } from './hosted-flow';
import { say } from '../../api/pages/messages';

const APPROVED = { number: '5123450000000008', expiry: '01/39', cvv: '100' };
const DETAILS = { name: 'Nimal Perera', email: 'nimal@example.com', phone: '077 123 4567' };
/** How long the test holds the checkout's row, so the workflow takes that long to apply the outcome. */
const HOLD_MS = 1500;

describe('checkout return page', () => {
  let api: TestApi;
  let keys: MerchantKeys;

  before(async () => ({ api, keys } = await startApiWithMerchant()));
  after(() => api?.close());

  it('waits for the workflow to apply the outcome with a bounded number of queries, then goes to the success URL', async () => {
    const c = (await api.request('/v1/checkouts', { key: keys.sk_test, idempotencyKey: ik(), body: { amountCents: 350000, description: 'Tea', successUrl: 'https://shop.example.lk/thanks' } })).body;
    const back = await payAtProcessor(api, c.url, APPROVED, DETAILS);
    await api.engine.runUntilIdle();

    // The row held, the workflow's settleAttempt waits on it while the page waits on the workflow.
    const hold = await api.knex.transaction();
    await hold('checkouts').where({ id: c.id }).forUpdate().first();
    let queries = 0;
    const count = () => queries++;
    api.knex.on('query', count);
    try {
      const returned = get(back);
      await new Promise((resolve) => setTimeout(resolve, HOLD_MS));
      assert.equal((await api.request(`/v1/checkouts/${c.id}`, { key: keys.sk_test })).body.status, 'open', 'still settling while the row is held');
      await hold.commit();
      const page = await returned;
      assert.equal(page.status, 303);
      assert.equal(page.location, 'https://shop.example.lk/thanks');
    } finally {
      api.knex.off('query', count);
      if (!hold.isCompleted()) await hold.rollback();
    }
    // The page's reads, the API call above, and the activity's transaction: a few dozen at most.
    assert.ok(queries < 40, `${queries} queries`);
    assert.equal((await api.request(`/v1/checkouts/${c.id}`, { key: keys.sk_test })).body.status, 'completed');
  });
});

describe('hosted pages rate limit', () => {
  let api: TestApi;
  let keys: MerchantKeys;

  before(async () => ({ api, keys } = await startApiWithMerchant({ env: { RATE_LIMIT_PER_MINUTE: '5' } })));
  after(() => api?.close());

  it('each page has the API’s per-address budget, in every language together; past it, 429 in the page’s language with Retry-After', async () => {
    const c = (await api.request('/v1/checkouts', { key: keys.sk_test, idempotencyKey: ik(), body: { amountCents: 350000, description: 'Tea' } })).body;
    const sinhala = c.url.replace('/checkout/', '/si/checkout/');
    for (const url of [c.url, c.url, sinhala, c.url, sinhala]) assert.equal((await get(url)).status, 200);
    const limited = await fetch(sinhala, { redirect: 'manual' });
    assert.equal(limited.status, 429);
    assert.match(limited.headers.get('content-type') ?? '', /^text\/html/);
    assert.ok(Number(limited.headers.get('retry-after')) >= 1, `Retry-After ${limited.headers.get('retry-after')}`);
    const text = await limited.text();
    assert.match(text, /<html lang="si"/);
    assert.ok(text.includes(say('si', 'tooManyRequests')), text);
    // Pay and the return page count on their own, as the API's endpoints do.
    assert.notEqual((await postForm(`${c.url}/pay`, {})).status, 429);
    assert.equal((await get(`${c.url.replace('/checkout/', '/ta/checkout/')}/return?attempt=1`)).status, 303);
    for (let i = 0; i < 5; i++) await get(`${c.url}/return?attempt=1`);
    const tamil = await get(`${c.url.replace('/checkout/', '/ta/checkout/')}/return?attempt=1`);
    assert.equal(tamil.status, 429);
    assert.ok(tamil.text.includes(say('ta', 'tooManyRequests')));
  });
});
