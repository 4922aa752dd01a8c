// The port's contract, on the embedded engine (the Temporal implementation is exercised by the
// same workflow tests when KASI_TEMPORAL_TEST_SERVER is set).
import assert from 'node:assert/strict';
import path from 'node:path';
import { startOrchestration } from '../../workers/orchestration';
import type { Orchestration } from '../../workers/orchestration';
import { WorkflowClosedError, WorkflowNotFoundError, WorkflowQueryFailedError } from '../../orchestration/errors';
import { workflowIdFor } from '../../orchestration/ids';

const workflowsPath = path.resolve(__dirname, '../fixtures/workflows/index.ts');

describe('orchestration port (embedded)', function () {
  let orchestration: Orchestration;
  const logged: string[] = [];
  const log = { debug() {}, info() {}, warn: (_: unknown, m: string) => logged.push(m), error: (_: unknown, m: string) => logged.push(m) };

  before(async function () {
    orchestration = await startOrchestration({ workflowsPath, activities: { record: async (label: string) => label }, clock: 'virtual', log });
  });
  after(async function () {
    await orchestration?.stop();
  });

  it('says plainly at start-up that the embedded mode is for one machine and production runs on Temporal', function () {
    assert.equal(orchestration.port.engine, 'embedded');
    assert.ok(logged.some((m) => /for one machine/.test(m) && /Production runs on Temporal/.test(m)), logged.join('\n'));
  });

  it('ids are <kind>/<objectId>; account and mode become search attributes', async function () {
    const workflowId = workflowIdFor('checkout', 'chk_0123');
    assert.equal(workflowId, 'checkout/chk_0123');
    await orchestration.port.start({ workflowType: 'checkoutLifetime', workflowId, args: ['chk_0123', 60_000], accountId: 'acct_9', mode: 'live' });
    const engineView = orchestration.engine!.describe(workflowId);
    assert.deepEqual(engineView?.searchAttributes, { KasiAccountId: 'acct_9', KasiMode: 'live' });
    // The engine shares encoded sets between runs: each run still has its own account and mode.
    const other = [['chk_0124', 'acct_9', 'test'], ['chk_0125', 'acct_10', 'live'], ['chk_0126', 'acct_9', 'live']] as const;
    for (const [id, accountId, mode] of other) {
      await orchestration.port.start({ workflowType: 'checkoutLifetime', workflowId: workflowIdFor('checkout', id), args: [id, 60_000], accountId, mode });
    }
    assert.deepEqual(
      other.map(([id]) => orchestration.engine!.describe(workflowIdFor('checkout', id))?.searchAttributes),
      other.map(([, accountId, mode]) => ({ KasiAccountId: accountId, KasiMode: mode })),
    );
    const description = await orchestration.port.describe(workflowId);
    assert.equal(description?.workflowType, 'checkoutLifetime');
    assert.equal(description?.status, 'RUNNING');
  });

  it('signals, queries and cancels name the workflow by id, with the port’s own errors', async function () {
    await assert.rejects(orchestration.port.signal('checkout/nope', 'paid', ['x']), WorkflowNotFoundError);
    assert.equal(await orchestration.port.describe('checkout/nope'), undefined);
    const workflowId = 'checkout/chk_q';
    await orchestration.port.start({ workflowType: 'checkoutLifetime', workflowId, args: ['chk_q', 60_000] });
    await assert.rejects(orchestration.port.query(workflowId, 'noSuchQuery'), WorkflowQueryFailedError);
    await orchestration.port.signal(workflowId, 'paid', ['pay_1']);
    await orchestration.engine!.runUntilIdle();
    assert.equal((await orchestration.port.describe(workflowId))?.status, 'COMPLETED');
    await assert.rejects(orchestration.port.signal(workflowId, 'paid', ['pay_1']), WorkflowClosedError);
    await orchestration.port.cancel(workflowId); // a closed workflow: nothing to do, no error
  });

  it('allow-duplicate runs a closed workflow id again; reject-duplicate does not', async function () {
    const workflowId = 'checkout/chk_again';
    const first = await orchestration.port.start({ workflowType: 'sleeper', workflowId, args: [10] });
    await orchestration.engine!.advance(10);
    assert.equal((await orchestration.port.start({ workflowType: 'sleeper', workflowId, args: [10] })).started, false);
    const again = await orchestration.port.start({ workflowType: 'sleeper', workflowId, args: [10], idReuse: 'allow-duplicate' });
    assert.equal(again.started, true);
    assert.notEqual(again.runId, first.runId);
  });
});
