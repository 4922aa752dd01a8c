// The orchestration port's contract, for either engine through the test facade: port.test.ts runs
// it on the embedded engine's port, port.time-skipping.test.ts on the Temporal port
// (orchestration/temporal.ts) against Temporal's time-skipping test server. Callers never learn
// which engine runs, so both must agree on ids, search attributes, errors and id reuse.
import assert from 'node:assert/strict';
import path from 'node:path';
import { createWorkflowEnv, skipWithoutTestServer } from '../support/workflow-env';
import type { WorkflowEngineKind, WorkflowEnv } from '../support/workflow-env';
import { defineUpdate } from '@temporalio/workflow';
import { WorkflowClosedError, WorkflowNotFoundError, WorkflowQueryFailedError, WorkflowUpdateRejectedError } from '../../orchestration/errors';
import { workflowIdFor } from '../../orchestration/ids';

const workflowsPath = path.resolve(__dirname, '../fixtures/workflows/index.ts');

export function portContract(title: string, on: WorkflowEngineKind): void {
  describe(title, function () {
    let env: WorkflowEnv;

    before(async function () {
      if (on === 'time-skipping-server') skipWithoutTestServer(this);
      env = await createWorkflowEnv({ workflowsPath, activities: { record: async (label: string) => label }, on });
    });
    after(async function () {
      await env?.teardown();
    });

    it('ids are <kind>/<objectId>; account and mode become search attributes, each run its own', async function () {
      const workflowId = workflowIdFor('checkout', 'chk_0123');
      assert.equal(workflowId, 'checkout/chk_0123');
      await env.port.start({ workflowType: 'checkoutLifetime', workflowId, args: ['chk_0123', 60_000], accountId: 'acct_9', mode: 'live' });
      assert.deepEqual(await env.searchAttributes(workflowId), { KasiAccountId: 'acct_9', KasiMode: 'live' });
      // The embedded engine shares encoded sets between runs: each run still has its own.
      const other = [['chk_0124', 'acct_9', 'test'], ['chk_0125', 'acct_10', 'live'], ['chk_0126', 'acct_9', 'live']] as const;
      for (const [id, accountId, mode] of other) {
        await env.port.start({ workflowType: 'checkoutLifetime', workflowId: workflowIdFor('checkout', id), args: [id, 60_000], accountId, mode });
      }
      assert.deepEqual(
        await Promise.all(other.map(([id]) => env.searchAttributes(workflowIdFor('checkout', id)))),
        other.map(([, accountId, mode]) => ({ KasiAccountId: accountId, KasiMode: mode })),
      );
      const description = await env.port.describe(workflowId);
      assert.equal(description?.workflowId, workflowId);
      assert.equal(description?.workflowType, 'checkoutLifetime');
      assert.equal(description?.status, 'RUNNING');
    });

    it('signals, queries and cancels name the workflow by id, with the port’s own errors', async function () {
      await assert.rejects(env.port.signal('checkout/nope', 'paid', ['x']), WorkflowNotFoundError);
      await assert.rejects(env.port.query('checkout/nope', 'state'), WorkflowNotFoundError);
      await assert.rejects(env.port.cancel('checkout/nope'), WorkflowNotFoundError);
      assert.equal(await env.port.describe('checkout/nope'), undefined);
      const workflowId = 'checkout/chk_q';
      await env.port.start({ workflowType: 'checkoutLifetime', workflowId, args: ['chk_q', 60_000] });
      // Queried once its first task has run: a server may refuse a query before.
      await env.sleep(1000);
      assert.equal(await env.port.query(workflowId, 'state'), 'open');
      await assert.rejects(env.port.query(workflowId, 'noSuchQuery'), WorkflowQueryFailedError);
      await env.port.signal(workflowId, 'paid', ['pay_1']);
      assert.equal(await env.result(workflowId), 'paid');
      assert.equal((await env.port.describe(workflowId))?.status, 'COMPLETED');
      await assert.rejects(env.port.signal(workflowId, 'paid', ['pay_1']), WorkflowClosedError);
      await env.port.cancel(workflowId); // a closed workflow: nothing to do, no error
      assert.equal((await env.port.describe(workflowId))?.status, 'COMPLETED');
    });

    it('updates run by name or definition and wait for the result, with the port’s own errors', async function () {
      const deposit = defineUpdate<number, [number]>('deposit');
      await assert.rejects(env.port.update('ledger/nope', deposit, [1]), WorkflowNotFoundError);
      const workflowId = 'ledger/port';
      await env.port.start({ workflowType: 'ledger', workflowId, args: [10, 1] });
      assert.equal(await env.port.update(workflowId, deposit, [5]), 15);
      assert.equal(await env.port.update(workflowId, 'deposit', [1]), 16);
      await assert.rejects(env.port.update(workflowId, deposit, [0]), (err: unknown) => err instanceof WorkflowUpdateRejectedError && err.workflowId === workflowId && err.updateName === 'deposit');
      await env.port.signal(workflowId, 'closeLedger');
      assert.equal(await env.result(workflowId), 16);
      await assert.rejects(env.port.update(workflowId, deposit, [1]), WorkflowClosedError);
    });

    it('allow-duplicate runs a closed workflow id again; reject-duplicate does not; neither starts a running one twice', async function () {
      const workflowId = 'checkout/chk_again';
      const first = await env.port.start({ workflowType: 'sleeper', workflowId, args: [10] });
      await env.result(workflowId);
      const rejected = await env.port.start({ workflowType: 'sleeper', workflowId, args: [10] });
      assert.deepEqual(rejected, { workflowId, runId: first.runId, started: false });
      const again = await env.port.start({ workflowType: 'sleeper', workflowId, args: [60_000], idReuse: 'allow-duplicate' });
      assert.equal(again.started, true);
      assert.notEqual(again.runId, first.runId);
      const running = await env.port.start({ workflowType: 'sleeper', workflowId, args: [60_000], idReuse: 'allow-duplicate' });
      assert.deepEqual(running, { workflowId, runId: again.runId, started: false });
    });

    it('signal-with-start on a closed id under reject-duplicate starts nothing and names the closed run', async function () {
      const workflowId = 'checkout/chk_sws';
      const first = await env.port.signalWithStart({ workflowType: 'checkoutLifetime', workflowId, args: ['chk_sws', 60_000] }, 'paid', ['pay_1']);
      assert.equal(await env.result(workflowId), 'paid');
      const again = await env.port.signalWithStart({ workflowType: 'checkoutLifetime', workflowId, args: ['chk_sws', 60_000] }, 'paid', ['pay_2']);
      assert.deepEqual(again, first);
      const description = await env.port.describe(workflowId);
      assert.deepEqual([description?.runId, description?.status], [first.runId, 'COMPLETED']);
    });
  });
}
