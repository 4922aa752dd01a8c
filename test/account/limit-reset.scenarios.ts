// account.limit.reset from the monthly-limit reset workflow over the real service in virtual time,
// on either engine (one spec file each): midnight on the 1st, Sri Lankan time, to each account and
// mode told of the limit the month before, once, across restarts. Plans with small limits (./limits.ts).
import assert from 'node:assert/strict';
import { colomboMonth } from '../../domain/time';
import type { MerchantKeys } from '../../db/merchants';
import { monthlyLimitResetStart } from '../../orchestration/starts';
import { skipUnlessInstalled, startApi, type EngineKind, type TestApi } from '../support/api';
import { ahead, assertInstant, by } from '../support/instants';
import { handOver, limitEvents, openCheckout, withPlans } from './limits';

const RESET_WORKFLOW = monthlyLimitResetStart().workflowId;

export function describeLimitReset(engine: EngineKind): void {
  describe(`account.limit.reset (${engine})`, () => {
    let api: TestApi;
    // Restarts are other processes on the same database: the embedded engine's (api.sibling).
    const embeddedOnly = engine === 'embedded' ? it : it.skip;

    before(async function () {
      skipUnlessInstalled(this, engine);
      // The time-skipping server starts at the real time; the embedded engine a day before a month ends.
      api = await startApi({ engine, env: withPlans(), ...(engine === 'embedded' ? { startAt: new Date('2027-05-30T12:00:00.000Z') } : {}) });
    });
    after(() => api?.close());

    /** The account's notices, as [type, mode, usedCents] and when each went out. */
    const notices = async (keys: MerchantKeys) => (await limitEvents(api, keys)).map((e) => ({ type: e.type, mode: e.mode, usedCents: e.usedCents, created: e.created }));

    it('at midnight on the 1st, Sri Lankan time, to each account and mode told of the limit last month, not before, and only once', async () => {
      const told = await api.merchant({ activate: true });
      const quiet = await api.merchant({ activate: true });
      await handOver(api, (await openCheckout(api, told.keys.sk_test, 80_000)).url);
      await handOver(api, (await openCheckout(api, quiet.keys.sk_test, 10_000)).url);
      const month = colomboMonth(api.clock.now());
      // Live mode's notice of this month, as a live charge would have written it.
      await api.knex('limit_notices').insert({ account_id: told.accountId, mode: 'live', period_start: month.start, kind: 'reached', created_at: api.clock.now() });
      await api.clock.set(ahead(api.clock, month.end.getTime() - 1));
      assert.deepEqual((await notices(told.keys)).map((n) => n.type), ['account.limit.approaching'], 'not before midnight');
      await api.clock.set(by(api.clock, month.end));
      await api.workflows.settle();
      const sent = await notices(told.keys);
      assert.deepEqual(sent.slice(1).map((n) => [n.type, n.mode]).sort(), [['account.limit.reset', 'live'], ['account.limit.reset', 'test']]);
      for (const reset of sent.slice(1)) assertInstant(api.clock, reset.created, month.end, 'the reset goes out at midnight');
      // The account as it stands in the new month (the payment handed over was never completed: its checkout expired).
      assert.equal(sent.find((n) => n.type === 'account.limit.reset' && n.mode === 'test')!.usedCents, 0);
      assert.deepEqual(await notices(quiet.keys), [], 'an account never told of the limit is told nothing of its reset');
      // A month later: nothing was sent in the month just ended, so nothing is reset.
      const next = colomboMonth(api.clock.now());
      await api.clock.set(by(api.clock, next.end));
      await api.workflows.settle();
      assert.equal((await notices(told.keys)).length, 3);
      // The workflow continued as new at each month's start: its history stays one month long.
      const history = await api.workflows.history(RESET_WORKFLOW);
      assert.ok((history.events ?? []).length < 20, `${history.events?.length} events in the current run`);
      await api.workflows.replay(RESET_WORKFLOW);
    });

    embeddedOnly('two services on one database, and one restarted after midnight, send each reset once: the resumer starts the workflow and its first run finds nothing due', async () => {
      const told = await api.merchant({ activate: true });
      await handOver(api, (await openCheckout(api, told.keys.sk_test, 100_000)).url);
      const month = colomboMonth(api.clock.now());
      const second = await api.sibling();
      const restarted: TestApi[] = [];
      try {
        await second.workflows.settle();
        assert.equal((await second.service.orchestration.port.describe(RESET_WORKFLOW))?.status, 'RUNNING', 'the resumer started it');
        // Both engines' timers fire at midnight, and both run the month's resets.
        await api.clock.set(month.end);
        await second.clock.set(month.end);
        await api.workflows.settle();
        await second.workflows.settle();
        const sent = await notices(told.keys);
        assert.deepEqual(sent.map((n) => n.type), ['account.limit.approaching', 'account.limit.reached', 'account.limit.reset']);
        restarted.push(await api.sibling());
        await restarted[0]!.workflows.settle();
        assert.deepEqual(await notices(told.keys), sent);
      } finally {
        await second.close();
        for (const one of restarted) await one.close();
      }
    });

    embeddedOnly('a service down at midnight sends the month\'s resets when it starts again, late but once', async () => {
      const told = await api.merchant({ activate: true });
      const month = colomboMonth(api.clock.now());
      const lastMonth = colomboMonth(new Date(month.start.getTime() - 1));
      // Told of the limit last month, and no reset since: the midnight passed with no service running.
      await api.knex('limit_notices').insert({ account_id: told.accountId, mode: 'test', period_start: lastMonth.start, kind: 'approaching', created_at: lastMonth.start });
      const booted = await api.sibling();
      try {
        await booted.workflows.settle();
        const sent = await notices(told.keys);
        assert.deepEqual(sent.map((n) => [n.type, n.mode, n.created]), [['account.limit.reset', 'test', api.clock.now().toISOString()]]);
        const again = await api.sibling();
        await again.workflows.settle();
        await again.close();
        assert.deepEqual(await notices(told.keys), sent);
      } finally {
        await booted.close();
      }
    });
  });
}
