// The `kasi` CLI as a user runs it: bin/kasi in a child process, on the same database as a
// running API server.
import assert from 'node:assert/strict';
import { startApi, type TestApi } from '../support/api';
import { runKasi, type KasiRun } from '../support/kasi';
import { eventually } from '../support/eventually';
import { verifyWebhook } from '../../sdk/index';
import { startReceiver } from '../webhooks/receiver';
import { recordWebhookLoopbackRule } from '../../db/installation';
import { connect } from '../../db/connection';
import { withDatabase } from '../../db/database-url';
import { newId } from '../../crypto/ids';

describe('kasi CLI', () => {
  let api: TestApi;
  let databaseUrl: string;

  before(async () => {
    api = await startApi();
    databaseUrl = api.databaseUrl;
  });
  after(() => api.close());

  async function kasi(...args: string[]): Promise<KasiRun> {
    return runKasi({ DATABASE_URL: databaseUrl }, ...args);
  }

  async function json(...args: string[]): Promise<any> {
    const res = await kasi(...args, '--json');
    assert.equal(res.code, 0, res.stderr);
    return JSON.parse(res.stdout);
  }

  it('merchant create --json gives the account id and six working keys; the account is not yet live', async () => {
    const out = await json('merchant', 'create', '--name', 'Colombo Books');
    assert.match(out.accountId, /^acct_[0-9a-z]{24}$/);
    assert.deepEqual(Object.keys(out.keys).sort(), ['ak_live', 'ak_test', 'pk_live', 'pk_test', 'sk_live', 'sk_test']);
    for (const [name, key] of Object.entries(out.keys)) assert.ok((key as string).startsWith(`${name}_`), name);
    const account = await api.request('/v1/account', { key: out.keys.sk_test });
    assert.equal(account.status, 200);
    assert.equal(account.body.id, out.accountId);
    assert.equal(account.body.name, 'Colombo Books');
    assert.equal(account.body.livePaymentsOpen, false);
    assert.equal((await api.request('/v1/account', { key: out.keys.pk_test })).status, 403);
  });

  it('merchant activate opens live payments; merchant set changes saved cards, plan, status and the dunning ladder\'s end', async () => {
    const { accountId, keys } = await json('merchant', 'create', '--name', 'Galle Crafts');
    const activated = await json('merchant', 'activate', accountId);
    assert.equal(activated.object, 'account');
    assert.equal(activated.id, accountId);
    assert.equal(activated.status, 'active');
    assert.equal(activated.livePaymentsOpen, true);
    const set = await json('merchant', 'set', accountId, '--saved-cards', 'on', '--plan', 'growth');
    assert.equal(set.savedCards, true);
    assert.equal(set.plan, 'growth');
    assert.equal(set.dunningEnd, 'unpaid');
    assert.equal((await json('merchant', 'set', accountId, '--dunning-end', 'canceled')).dunningEnd, 'canceled');
    const suspended = await json('merchant', 'set', accountId, '--status', 'suspended');
    assert.equal(suspended.status, 'suspended');
    assert.equal(suspended.livePaymentsOpen, false);
    // The server hears of the change by a notification from Postgres, milliseconds after it commits.
    let attempt = 0;
    const write = await eventually(
      () => api.request('/v1/customers', { key: keys.sk_live, body: { email: 'a@example.com' }, idempotencyKey: `cli-suspended-${++attempt}` }),
      (res) => res.status !== 201,
    );
    assert.equal(write.body.reason, 'merchant_unavailable');
    const back = await json('merchant', 'set', accountId, '--status', 'active');
    assert.equal(back.livePaymentsOpen, true);
    assert.equal(back.liveActivatedAt, activated.liveActivatedAt, 'the first activation time is kept');
  });

  it('key create makes a key of the given kind, mode and permissions; key revoke by key or id', async () => {
    const { accountId } = await json('merchant', 'create', '--name', 'Kandy Spices');
    const readOnly = await json('key', 'create', accountId, '--kind', 'secret', '--mode', 'test', '--permissions', 'billing:read,payments:read');
    assert.match(readOnly.id, /^key_[0-9a-z]{24}$/);
    assert.match(readOnly.key, /^sk_test_[0-9A-Za-z]{32}$/);
    assert.equal((await api.request('/v1/customers', { key: readOnly.key })).status, 200);
    const refused = await api.request('/v1/customers', { key: readOnly.key, body: { email: 'a@example.com' }, idempotencyKey: 'cli-perm-1' });
    assert.equal(refused.body.reason, 'key_not_permitted');

    const revoked = await json('key', 'revoke', readOnly.key);
    assert.equal(revoked.id, readOnly.id);
    assert.equal(revoked.kind, 'secret');
    assert.ok(revoked.revokedAt);
    assert.ok(!JSON.stringify(revoked).includes(readOnly.key), 'the record never shows the key');
    const afterRevoke = await eventually(() => api.request('/v1/customers', { key: readOnly.key }), (res) => res.status !== 200);
    assert.equal(afterRevoke.body.reason, 'unknown_api_key');

    const agent = await json('key', 'create', accountId, '--kind', 'agent', '--mode', 'live', '--expires', '2099-01-01T00:00:00Z');
    const byId = await json('key', 'revoke', agent.id);
    assert.equal(byId.expiresAt, '2099-01-01T00:00:00.000Z');
    assert.equal(byId.mode, 'live');
  });

  it('explains bad usage with exit code 2, and missing objects with exit code 1', async () => {
    const noName = await kasi('merchant', 'create');
    assert.equal(noName.code, 2);
    assert.match(noName.stderr, /--name is required/);
    const badKind = await kasi('key', 'create', 'acct_000000000000000000000000', '--kind', 'master', '--mode', 'test');
    assert.equal(badKind.code, 2);
    assert.match(badKind.stderr, /--kind must be one of: secret, publishable, agent/);
    const unknown = await kasi('merchant', 'activate', 'acct_000000000000000000000000');
    assert.equal(unknown.code, 1);
    assert.match(unknown.stderr, /no account/);
    const longName = await kasi('merchant', 'create', '--name', 'x'.repeat(121), '--json');
    assert.equal(longName.code, 2);
    assert.match(longName.stderr, /--name must be at most 120 characters/);
    assert.equal(longName.stdout, '');
    assert.equal((await kasi('merchant', 'create', '--name', '   ')).code, 2);
    assert.equal((await json('merchant', 'create', '--name', 'ශ්‍රී'.repeat(24))).accountId.slice(0, 5), 'acct_', '120 characters are accepted');
    const noAccount = await kasi('webhook', 'list', 'acct_000000000000000000000000', '--json');
    assert.equal(noAccount.code, 1);
    assert.equal(noAccount.stdout, '');
    assert.match(noAccount.stderr, /no account acct_000000000000000000000000/);
    const nothing = await kasi('frobnicate');
    assert.equal(nothing.code, 2);
    assert.match(nothing.stderr, /usage: kasi/);
  });

  it('webhook add, list, ping, attempts and rotate', async () => {
    const receiver = await startReceiver();
    try {
      const { accountId } = await json('merchant', 'create', '--name', 'Hooks');
      const added = await json('webhook', 'add', accountId, '--url', receiver.url, '--mode', 'test');
      assert.match(added.id, /^we_[0-9a-z]{24}$/);
      assert.match(added.secret, /^whsec_/);
      assert.deepEqual(await json('webhook', 'list', accountId), [{ id: added.id, url: receiver.url, mode: 'test', enabled: true }]);

      const ping = await json('webhook', 'ping', added.id);
      assert.equal(ping.delivered, true);
      assert.equal(ping.statusCode, 200);
      const [got] = await receiver.waitFor(1);
      assert.equal(verifyWebhook<{ type: string }>(got!.body, String(got!.headers['service-signature']), added.secret).type, 'test.ping');

      const attempts = await json('webhook', 'attempts', added.id);
      assert.equal(attempts.length, 1);
      assert.equal(attempts[0].eventType, 'test.ping');
      assert.equal(attempts[0].statusCode, 200);

      const rotated = await json('webhook', 'rotate', added.id);
      assert.equal(rotated.id, added.id);
      assert.notEqual(rotated.secret, added.secret);
      await json('webhook', 'ping', added.id);
      const [, second] = await receiver.waitFor(2);
      verifyWebhook(second!.body, String(second!.headers['service-signature']), added.secret);
      verifyWebhook(second!.body, String(second!.headers['service-signature']), rotated.secret);

      const disabled = await json('webhook', 'disable', added.id);
      assert.equal(disabled.enabled, false);
      assert.deepEqual(await json('webhook', 'list', accountId), [{ id: added.id, url: receiver.url, mode: 'test', enabled: false }]);
      assert.equal((await json('webhook', 'enable', added.id)).enabled, true);

      const live = await kasi('webhook', 'add', accountId, '--url', 'https://10.0.0.1/hook', '--mode', 'live');
      assert.equal(live.code, 1);
      assert.match(live.stderr, /internal address/);
    } finally {
      await receiver.close();
    }
  });

  it('prints merchants\' and customers\' text with its control characters escaped, visibly; --json keeps it exact', async () => {
    // Clears the screen, rewrites and fakes a line, rings, a C1 CSI, reverses the text, DEL.
    const hostile = 'Tea\x1b[2J\x1b[H\r\nupreq_fake  approved\u0007\u009b31m\u202eX\x7f';
    const escaped = 'Tea\\u001b[2J\\u001b[H\\u000d\\u000aupreq_fake  approved\\u0007\\u009b31m\\u202eX\\u007f';
    const controls = /[\u0000-\u0009\u000b-\u001f\u007f-\u009f\u2028\u2029\u202a-\u202e\u2066-\u2069]/;
    const human = async (...args: string[]) => {
      const res = await kasi(...args);
      assert.equal(res.code, 0, res.stderr);
      assert.doesNotMatch(res.stdout, controls, JSON.stringify(res.stdout));
      assert.ok(res.stdout.includes(escaped), res.stdout);
      return res.stdout;
    };
    const created = await human('merchant', 'create', '--name', hostile);
    const accountId = /created (acct_[0-9a-z]{24})/.exec(created)![1]!;
    const sk = /sk_test: (\S+)/.exec(created)![1]!;
    assert.equal((await human('merchant', 'set', accountId, '--saved-cards', 'on')).split('\n').length, 2, 'one line');

    const price = await api.request('/v1/prices', { key: sk, idempotencyKey: `price-${accountId}`, body: { product: { name: hostile }, unitAmountCents: 150000, interval: 'month' } });
    assert.equal(price.status, 201, price.text);
    assert.equal((await human('price', 'archive', price.body.id)).split('\n').length, 2, 'one line');
    const raw = await kasi('price', 'archive', price.body.id, '--json');
    assert.doesNotMatch(raw.stdout, controls, 'JSON escapes DEL, C1 and the bidirectional override too');
    assert.equal(JSON.parse(raw.stdout).product.name, hostile);

    await api.knex('emails').insert({
      id: newId('email'), account_id: accountId, mode: 'test', to: 'nimal@example.com', kind: 'receipt', locale: 'en',
      subject: `Your receipt from ${hostile}`, text: 'x', html: 'x', object_id: 'pay_0mw8a3k2x9q1c7v5b4n6m2z8', created_at: new Date(),
    });
    assert.equal((await human('emails', accountId)).split('\n').length, 2, 'one line');
    assert.equal(JSON.parse((await kasi('emails', accountId, '--json')).stdout)[0].subject, `Your receipt from ${hostile}`);

    // An error naming outside text goes to stderr escaped as well.
    const refused = await kasi('merchant', 'set', accountId, '--plan', hostile);
    assert.equal(refused.code, 2);
    assert.doesNotMatch(refused.stderr, controls);
  });

  it('a database it cannot reach: one line on stderr, nothing on stdout, exit code 1', async () => {
    const res = await runKasi({ DATABASE_URL: 'postgres://kasi@127.0.0.1:1/kasi' }, 'webhook', 'list', 'acct_000000000000000000000000', '--json');
    assert.equal(res.code, 1);
    assert.equal(res.stdout, '');
    assert.match(res.stderr, /^kasi: connect ECONNREFUSED 127\.0\.0\.1:1$/m);
    assert.doesNotMatch(res.stderr, /\n\s+at /, 'no stack trace');
  });

  it('a ping that does not reach its endpoint prints the attempt and exits 1', async () => {
    const { accountId } = await json('merchant', 'create', '--name', 'Unreachable');
    const closed = await startReceiver();
    await closed.close();
    const added = await json('webhook', 'add', accountId, '--url', closed.url, '--mode', 'test');
    const res = await kasi('webhook', 'ping', added.id, '--json');
    assert.equal(res.code, 1);
    const attempt = JSON.parse(res.stdout);
    assert.equal(attempt.delivered, false);
    assert.equal(attempt.statusCode, null);
    assert.match(res.stderr, /^kasi: test\.ping to .*: failed/);
  });

  it('refuses to run with a secret key other than the one the database\'s secrets are sealed with', async () => {
    await json('migrate'); // the installation's key is recorded by its first user
    const otherKey = Buffer.alloc(32, 9).toString('base64');
    const res = await runKasi({ DATABASE_URL: databaseUrl, KASI_SECRET_KEY: otherKey }, 'merchant', 'create', '--name', 'Wrong Key', '--json');
    assert.equal(res.code, 1);
    assert.equal(res.stdout, '');
    assert.match(res.stderr, /secret key \(fingerprint [0-9a-f]{16}\) is not the one this database's secrets are sealed with \(fingerprint [0-9a-f]{16}\)/);
    assert.match(res.stderr, /KASI_SECRET_KEY/);
    assert.equal((await api.knex('accounts').where({ name: 'Wrong Key' })).length, 0);
  });

  it('applies the webhook loopback rule the server recorded, not one from its own environment', async () => {
    const { accountId } = await json('merchant', 'create', '--name', 'Loopback Rule');
    await recordWebhookLoopbackRule(api.knex, false, new Date());
    try {
      // The CLI's own environment (no PUBLIC_BASE_URL: a local install) would allow loopback.
      const refused = await kasi('webhook', 'add', accountId, '--url', 'http://127.0.0.1:9/hook', '--mode', 'test');
      assert.equal(refused.code, 1);
      assert.match(refused.stderr, /Must use https\./);
    } finally {
      await recordWebhookLoopbackRule(api.knex, true, new Date());
    }
    assert.equal((await kasi('webhook', 'add', accountId, '--url', 'http://127.0.0.1:9/hook', '--mode', 'test')).code, 0);
  });

  it('migrate reports an up-to-date database', async () => {
    const out = await json('migrate');
    assert.deepEqual(out, { applied: [] });
  });

  it('migrate --status lists applied and pending migrations and applies none, even on an empty database', async () => {
    const emptyName = `kasi_empty_${process.pid}_${Date.now()}`;
    await api.knex.raw(`create database ${emptyName}`);
    const empty = connect(withDatabase(databaseUrl, emptyName), 1);
    try {
      const fresh = await runKasi({ DATABASE_URL: withDatabase(databaseUrl, emptyName) }, 'migrate', '--status', '--json');
      assert.equal(fresh.code, 0, fresh.stderr);
      const status = JSON.parse(fresh.stdout);
      assert.deepEqual(status.applied, []);
      assert.equal(status.pending[0], '001-platform');
      assert.ok(status.pending.includes('007-installation'));
      const tables = await empty.raw(`select tablename from pg_tables where schemaname = 'public'`);
      assert.deepEqual(tables.rows, [], 'nothing written, not even knex\'s own tables');
      const applied = await runKasi({ DATABASE_URL: withDatabase(databaseUrl, emptyName) }, 'migrate', '--json');
      assert.deepEqual(JSON.parse(applied.stdout), { applied: status.pending }, 'migrate reports what it applied');
      assert.deepEqual(await json('migrate', '--status'), { applied: status.pending, pending: [] });
      assert.match((await kasi('migrate', '--status')).stdout, /^applied: 001-platform, .*\npending: none\n$/);
    } finally {
      await empty.destroy();
      await api.knex.raw(`drop database ${emptyName} with (force)`);
    }
  });
});
