// `kasi upgrade-requests list|approve|decline` as an operator runs it: bin/kasi in a child process,
// on the same database as a running API server, with the same plan catalogue (./limits.ts).
import assert from 'node:assert/strict';
import { ik, startApi, type TestApi } from '../support/api';
import { eventually } from '../support/eventually';
import { runKasi, type KasiRun } from '../support/kasi';
import { withPlans } from './limits';

describe('kasi upgrade-requests', function () {
  // Each command is a process of its own (tsx compiling the CLI): seconds each under a loaded suite.
  this.timeout(120_000);
  let api: TestApi;
  let env: Record<string, string>;

  before(async () => {
    env = withPlans();
    api = await startApi({ env });
  });
  after(() => api.close());

  const kasi = (...args: string[]): Promise<KasiRun> => runKasi({ DATABASE_URL: api.databaseUrl, ...env }, ...args);

  async function json(...args: string[]): Promise<any> {
    const res = await kasi(...args, '--json');
    assert.equal(res.code, 0, res.stderr);
    return JSON.parse(res.stdout);
  }

  const ask = async (key: string, body: unknown) => {
    const res = await api.request('/v1/account/upgrade_requests', { key, body, idempotencyKey: ik('cli-upgrade') });
    assert.equal(res.status, 201, res.text);
    return res.body;
  };

  it('lists every account\'s requests newest first, or those of one status; approve moves the account to the plan, decline keeps it and says why; each decided once', async () => {
    const galle = await api.merchant({ name: 'Galle Fort Books' });
    const kandy = await api.merchant({ name: 'Kandy Spices' });
    const jaffna = await api.merchant({ name: 'Jaffna Mangoes' });
    const first = await ask(galle.keys.sk_test, { plan: 'growth', message: 'The tourist season.' });
    const second = await ask(kandy.keys.sk_test, { plan: 'scale' });
    const third = await ask(jaffna.keys.sk_test, { plan: 'growth' });

    const all = await json('upgrade-requests', 'list');
    assert.deepEqual(all.map((r: any) => [r.id, r.accountId, r.accountName, r.status]), [
      [third.id, jaffna.accountId, 'Jaffna Mangoes', 'pending'],
      [second.id, kandy.accountId, 'Kandy Spices', 'pending'],
      [first.id, galle.accountId, 'Galle Fort Books', 'pending'],
    ]);
    assert.deepEqual(all[2], { ...first, accountId: galle.accountId, accountName: 'Galle Fort Books' }, 'the object the merchant sees, with its account');

    const approved = await json('upgrade-requests', 'approve', first.id);
    assert.equal(approved.status, 'approved');
    assert.equal(approved.plan, 'growth');
    assert.match(approved.decidedAt, /^\d{4}-\d\d-\d\dT/);
    // The server hears of the account's change by a notification from Postgres, just after the commit.
    const account = await eventually(() => api.request('/v1/account', { key: galle.keys.sk_test }), (res) => res.body.plan === 'growth');
    assert.equal(account.body.plan, 'growth');
    assert.equal(account.body.monthlyLimit.limitCents, 1_000_000);
    assert.equal(account.body.pendingUpgradeRequest, null);

    const declined = await json('upgrade-requests', 'decline', second.id, '--reason', 'Tell us more about the wholesale orders first.');
    assert.equal(declined.status, 'declined');
    assert.equal(declined.declineReason, 'Tell us more about the wholesale orders first.');
    const seen = (await api.request('/v1/account/upgrade_requests', { key: kandy.keys.sk_test })).body.data[0];
    assert.equal(seen.declineReason, 'Tell us more about the wholesale orders first.');
    assert.equal((await api.request('/v1/account', { key: kandy.keys.sk_test })).body.plan, 'starter');

    assert.deepEqual((await json('upgrade-requests', 'list', '--status', 'pending')).map((r: any) => r.id), [third.id]);
    const text = await kasi('upgrade-requests', 'list', '--status', 'declined');
    assert.equal(text.code, 0);
    assert.match(text.stdout, new RegExp(`^${second.id}  declined  ${kandy.accountId} \\(Kandy Spices\\)  starter -> scale  .*"Tell us more about the wholesale orders first\\."\n$`));

    const twice = await kasi('upgrade-requests', 'approve', second.id);
    assert.equal(twice.code, 1);
    assert.match(twice.stderr, /was declined already/);
    assert.equal((await api.request('/v1/account', { key: kandy.keys.sk_test })).body.plan, 'starter');
    // For people, without --json: a line saying what changed.
    const approvedText = await kasi('upgrade-requests', 'approve', third.id);
    assert.equal(approvedText.stdout, `approved ${third.id}: ${jaffna.accountId} (Jaffna Mangoes) is on plan growth now (was starter)\n`);
    const fourth = await ask(kandy.keys.sk_test, { plan: 'growth' });
    const declinedText = await kasi('upgrade-requests', 'decline', fourth.id);
    assert.equal(declinedText.stdout, `declined ${fourth.id}: ${kandy.accountId} keeps its plan\n`);
    assert.equal((await json('upgrade-requests', 'list', '--status', 'declined'))[0].declineReason, null, 'declined without a reason');
  });

  it('prints a request\'s message and its account\'s name with control characters escaped: nothing reaches the operator\'s terminal as a command', async () => {
    const message = '\x1b[2J\x1b[HAll clear\r\nupreq_fake  approved\u009b31m\u202e';
    const shown = '\\u001b[2J\\u001b[HAll clear\\u000d\\u000aupreq_fake  approved\\u009b31m\\u202e';
    const colombo = await api.merchant({ name: 'Colombo\x1b]0;pwned\x07 Tea' });
    const request = await ask(colombo.keys.sk_test, { plan: 'growth', message });
    const controls = /[\u0000-\u0009\u000b-\u001f\u007f-\u009f\u202a-\u202e]/;
    const list = await kasi('upgrade-requests', 'list', '--status', 'pending');
    assert.equal(list.code, 0, list.stderr);
    assert.doesNotMatch(list.stdout, controls, JSON.stringify(list.stdout));
    const line = list.stdout.split('\n').find((l) => l.startsWith(request.id))!;
    assert.ok(line.endsWith(`"${shown}"`), line);
    assert.ok(line.includes('(Colombo\\u001b]0;pwned\\u0007 Tea)'), line);
    assert.ok(!list.stdout.split('\n').some((l) => l.startsWith('upreq_fake')), 'no line faked');
    assert.equal((await json('upgrade-requests', 'list', '--status', 'pending')).find((r: any) => r.id === request.id).message, message);
    const approved = await kasi('upgrade-requests', 'approve', request.id);
    assert.equal(approved.code, 0, approved.stderr);
    assert.doesNotMatch(approved.stdout, controls);
    assert.match(approved.stdout, /\(Colombo\\u001b\]0;pwned\\u0007 Tea\) is on plan growth/);
  });

  it('bad usage exits 2; an unknown request exits 1', async () => {
    const badStatus = await kasi('upgrade-requests', 'list', '--status', 'waiting');
    assert.equal(badStatus.code, 2);
    assert.match(badStatus.stderr, /--status must be one of: pending, approved, declined/);
    const noId = await kasi('upgrade-requests', 'approve');
    assert.equal(noId.code, 2);
    assert.match(noId.stderr, /missing <upgradeRequestId>/);
    const longReason = await kasi('upgrade-requests', 'decline', 'upreq_000000000000000000000000', '--reason', 'x'.repeat(501));
    assert.equal(longReason.code, 2);
    assert.match(longReason.stderr, /--reason must be 1 to 500 characters/);
    const unknown = await kasi('upgrade-requests', 'approve', 'upreq_000000000000000000000000', '--json');
    assert.equal(unknown.code, 1);
    assert.equal(unknown.stdout, '');
    assert.match(unknown.stderr, /No upgrade request with id upreq_000000000000000000000000/);
  });
});
