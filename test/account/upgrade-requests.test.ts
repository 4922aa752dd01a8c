// POST /v1/account/upgrade_requests and GET /v1/account/upgrade_requests over HTTP, and the pending
// request on GET /v1/account; an operator's decision (the service `kasi upgrade-requests` calls)
// moves the account to the plan. Plans with small limits (./limits.ts).
import assert from 'node:assert/strict';
import pino from 'pino';
import { approveUpgradeRequest, declineUpgradeRequest } from '../../services/account/decide-upgrade-request';
import { inTransaction } from '../../services/run';
import { createApiKey } from '../../services/api-keys/create';
import { findAccount } from '../../db/accounts';
import { ik, startApi, type TestApi } from '../support/api';
import { withPlans } from './limits';

describe('upgrade requests', () => {
  let api: TestApi;

  before(async () => {
    api = await startApi({ env: withPlans(), startAt: new Date('2027-04-02T04:00:00.000Z') });
  });
  after(() => api.close());

  const deps = () => ({ db: api.knex, clock: api.clock, config: api.config, workflows: api.service.orchestration.port, log: pino({ level: 'silent' }) });
  const ask = (key: string, body: unknown, idempotencyKey = ik('upgrade')) => api.request('/v1/account/upgrade_requests', { key, body, idempotencyKey });
  const list = (key: string, query = '') => api.request(`/v1/account/upgrade_requests${query}`, { key });
  const account = async (key: string) => (await api.request('/v1/account', { key })).body;

  it('asks for a plan above the account\'s: 201 pending, shown on GET /v1/account to keys of both modes; one at a time', async () => {
    const { keys } = await api.merchant({ activate: true });
    assert.equal((await account(keys.sk_test)).pendingUpgradeRequest, null);
    const res = await ask(keys.sk_test, { plan: 'growth', message: 'Avurudu season is coming.' });
    assert.equal(res.status, 201, res.text);
    assert.match(res.body.id, /^upreq_[0-9a-z]{24}$/);
    assert.deepEqual(res.body, {
      object: 'upgrade_request',
      id: res.body.id,
      plan: 'growth',
      fromPlan: 'starter',
      status: 'pending',
      message: 'Avurudu season is coming.',
      declineReason: null,
      createdAt: '2027-04-02T04:00:00.000Z',
      decidedAt: null,
    });
    for (const key of [keys.sk_test, keys.sk_live]) {
      const shown = await account(key);
      assert.deepEqual(shown.pendingUpgradeRequest, res.body);
      assert.equal(shown.plan, 'starter', 'nothing changes until an operator approves');
    }
    const again = await ask(keys.sk_live, { plan: 'scale' });
    assert.equal(again.status, 409);
    assert.equal(again.body.reason, 'upgrade_request_pending');
    assert.equal(again.body.code, 'CONFLICT');
    assert.equal((await list(keys.sk_test)).body.data.length, 1);
  });

  it('the same Idempotency-Key replays the request; concurrent requests make exactly one', async () => {
    const { keys } = await api.merchant();
    const key = ik('upgrade-replay');
    const first = await ask(keys.sk_test, { plan: 'scale' }, key);
    const replay = await ask(keys.sk_test, { plan: 'scale' }, key);
    assert.equal(replay.status, 201);
    assert.equal(replay.headers.get('idempotent-replayed'), 'true');
    assert.equal(replay.body.id, first.body.id);
    const { keys: other } = await api.merchant();
    const racing = await Promise.all(Array.from({ length: 10 }, () => ask(other.sk_test, { plan: 'growth' })));
    assert.deepEqual(racing.map((r) => r.status).sort(), [201, ...Array<number>(9).fill(409)]);
    assert.equal((await list(other.sk_test)).body.data.length, 1);
  });

  it('refuses a plan that is not above the account\'s, an unknown plan, and a body outside the schema', async () => {
    const { keys } = await api.merchant();
    const fields = async (body: unknown) => {
      const res = await ask(keys.sk_test, body);
      assert.equal(res.status, 400, res.text);
      assert.equal(res.body.code, 'VALIDATION_FAILED');
      return res.body.fields;
    };
    assert.deepEqual(await fields({ plan: 'starter' }), [{ path: 'plan', message: 'must be a plan above starter: one of growth, scale' }]);
    assert.deepEqual(await fields({ plan: 'platinum' }), [{ path: 'plan', message: 'must be a plan above starter: one of growth, scale' }]);
    assert.deepEqual((await fields({})).map((f: any) => f.path), ['plan']);
    assert.deepEqual((await fields({ plan: 'growth', message: 'x'.repeat(501) })).map((f: any) => f.path), ['message']);
    assert.deepEqual((await fields({ plan: 'growth', message: '' })).map((f: any) => f.path), ['message']);
    assert.deepEqual((await fields({ plan: 'growth', note: 'hi' })).map((f: any) => f.path), ['']);
    assert.equal((await ask(keys.sk_test, { plan: 'growth', message: 'x'.repeat(500) })).status, 201);
    const { keys: top } = await api.merchant({ changes: { plan: 'scale' } });
    const res = await ask(top.sk_test, { plan: 'growth' });
    assert.deepEqual(res.body.fields, [{ path: 'plan', message: 'no plan is above scale' }]);
  });

  it('keys: secret only, with billing:write to ask and billing:read to list; an Idempotency-Key is needed; a suspended account may not ask', async () => {
    const { accountId, keys } = await api.merchant({ activate: true });
    assert.equal((await ask(keys.pk_test, { plan: 'growth' })).body.reason, 'key_not_permitted');
    assert.equal((await list(keys.pk_test)).body.reason, 'key_not_permitted');
    const merchant = (await findAccount(api.knex, accountId))!;
    const readOnly = await inTransaction(deps(), (ctx) => createApiKey(ctx, merchant, { kind: 'secret', mode: 'test', permissions: ['billing:read'] }));
    const refused = await ask(readOnly.key, { plan: 'growth' });
    assert.equal(refused.status, 403);
    assert.equal(refused.body.reason, 'key_not_permitted');
    assert.equal((await list(readOnly.key)).status, 200);
    const noKey = await api.request('/v1/account/upgrade_requests', { key: keys.sk_test, body: { plan: 'growth' } });
    assert.equal(noKey.body.reason, 'idempotency_key_missing');
    const { keys: unactivated } = await api.merchant();
    assert.equal((await ask(unactivated.sk_live, { plan: 'growth' })).body.reason, 'merchant_not_live');
    const { keys: suspended } = await api.merchant({ activate: true, changes: { status: 'suspended' } });
    assert.equal((await ask(suspended.sk_test, { plan: 'growth' })).body.reason, 'merchant_unavailable');
  });

  it('approved: the account is on the plan, with its limit, at once; declined: the plan stays, with the reason; the list pages newest first and filters by status', async () => {
    const { keys } = await api.merchant();
    const first = (await ask(keys.sk_test, { plan: 'growth' })).body;
    await api.clock.advance(60_000);
    const { request, account: approved } = await inTransaction(deps(), (ctx) => approveUpgradeRequest(ctx, first.id));
    assert.equal(request.status, 'approved');
    assert.equal(approved.plan, 'growth');
    const shown = await account(keys.sk_test);
    assert.equal(shown.plan, 'growth');
    assert.equal(shown.monthlyLimit.limitCents, 1_000_000);
    assert.equal(shown.pendingUpgradeRequest, null);
    const second = (await ask(keys.sk_test, { plan: 'scale', message: 'A wholesale buyer.' })).body;
    assert.equal(second.fromPlan, 'growth');
    await api.clock.advance(60_000);
    await inTransaction(deps(), (ctx) => declineUpgradeRequest(ctx, second.id, 'Send us your last three months of statements first.'));
    assert.equal((await account(keys.sk_test)).plan, 'growth');
    const page1 = await list(keys.sk_test, '?limit=1');
    assert.equal(page1.status, 200);
    assert.deepEqual(page1.body.data, [{
      object: 'upgrade_request', id: second.id, plan: 'scale', fromPlan: 'growth', status: 'declined', message: 'A wholesale buyer.',
      declineReason: 'Send us your last three months of statements first.', createdAt: '2027-04-02T04:01:00.000Z', decidedAt: '2027-04-02T04:02:00.000Z',
    }]);
    assert.equal(page1.body.hasMore, true);
    const page2 = await list(keys.sk_test, `?limit=1&cursor=${page1.body.nextCursor}`);
    assert.deepEqual(page2.body.data.map((r: any) => [r.id, r.status, r.decidedAt]), [[first.id, 'approved', '2027-04-02T04:01:00.000Z']]);
    assert.equal(page2.body.hasMore, false);
    assert.deepEqual((await list(keys.sk_live, '?status=approved')).body.data.map((r: any) => r.id), [first.id], 'a live key sees the account\'s requests too');
    assert.equal((await list(keys.sk_test, '?status=waiting')).status, 400);
    // A decision is made once.
    await assert.rejects(inTransaction(deps(), (ctx) => approveUpgradeRequest(ctx, second.id)), /was declined already/);
    assert.equal((await account(keys.sk_test)).plan, 'growth');
  });
});
