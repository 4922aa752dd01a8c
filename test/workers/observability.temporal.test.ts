// On Temporal, /readyz asks the frontend about the namespace, and kasi_workflows_open comes from
// the namespace's visibility store: checked on Temporal's development server (skipped, saying so, when it is not installed), where a workflow
// no worker polls for stays running.
import assert from 'node:assert/strict';
import { Client, Connection } from '@temporalio/client';
import pino from 'pino';
import { registry } from '../../config/metrics';
import { connect } from '../../db/connection';
import { TASK_QUEUE } from '../../orchestration/ids';
import { missingToolMessage, toolPath } from '../../workers/tools';
import { startTemporalDevServer, type DevServer } from '../../workers/temporal-dev-server';
import { observeOrchestration, WORKFLOW_TYPES, type OrchestrationObserver } from '../../workers/observability';
import { eventually } from '../support/eventually';

/** The gauge's value (the process's: any other running service's workflows count too). */
async function openWorkflows(type: string): Promise<number> {
  const metric = (await registry.getSingleMetric('kasi_workflows_open')!.get()).values.find((v) => v.labels.workflow_type === type);
  return metric?.value ?? 0;
}

describe('readiness and open workflows on Temporal (development server)', function () {
  this.timeout(90_000);
  let server: DevServer | undefined;
  let connection: Connection | undefined;
  let metrics: OrchestrationObserver | undefined;
  const db = connect('postgres://nobody@127.0.0.1:1/none', 1);

  before(async function () {
    const cli = toolPath('temporal');
    if (!cli) {
      console.log(`      skipped: ${missingToolMessage('temporal')}`);
      this.skip();
    }
    server = await startTemporalDevServer({ cli: cli!, headless: true, readyTimeoutMs: 60_000 });
    connection = await Connection.connect({ address: server.address });
  });
  after(async () => {
    await metrics?.stop();
    await connection?.close();
    await server?.stop();
    await db.destroy();
  });

  it('is ready when the server answers for the namespace, and not for a namespace it lacks', async () => {
    const ready = observeOrchestration({ temporal: { address: server!.address, namespace: server!.namespace }, log: pino({ level: 'silent' }) });
    const missing = observeOrchestration({ temporal: { address: server!.address, namespace: 'no-such-namespace' }, log: pino({ level: 'silent' }) });
    try {
      await ready.readiness!();
      await assert.rejects(missing.readiness!(), { message: 'the Temporal server does not answer' });
    } finally {
      await ready.stop();
      await missing.stop();
    }
  });

  it('counts the running workflows of each type from visibility', async () => {
    metrics = observeOrchestration({ temporal: { address: server!.address, namespace: server!.namespace }, log: pino({ level: 'silent' }) });
    metrics.watch({ db, engine: undefined });
    assert.deepEqual(WORKFLOW_TYPES, ['cardCharge', 'cardExpiringNotices', 'checkoutLifetime', 'invoiceCollection', 'monthlyLimitReset', 'paymentRefund', 'subscriptionLife', 'testClockAdvance', 'webhookDelivery', 'webhookResend']);
    const before = { checkoutLifetime: await openWorkflows('checkoutLifetime'), webhookDelivery: await openWorkflows('webhookDelivery'), webhookResend: await openWorkflows('webhookResend') };
    const client = new Client({ connection: connection!, namespace: server!.namespace });
    // No worker polls the queue, so both stay running.
    for (const id of ['checkout/chk_a', 'checkout/chk_b']) {
      await client.workflow.start('checkoutLifetime', { taskQueue: TASK_QUEUE, workflowId: id, args: [{ checkoutId: id, expiresAt: new Date().toISOString() }] });
    }
    await client.workflow.start('webhookDelivery', { taskQueue: TASK_QUEUE, workflowId: 'webhook-delivery/whd_a', args: ['whd_a', { attemptsMade: 0, waitMs: 0 }] });
    const checkouts = () => openWorkflows('checkoutLifetime').then((n) => n - before.checkoutLifetime);
    assert.equal(await eventually(checkouts, (n) => n === 2, 10_000), 2);
    assert.equal((await openWorkflows('webhookDelivery')) - before.webhookDelivery, 1);
    assert.equal((await openWorkflows('webhookResend')) - before.webhookResend, 0);
    await client.workflow.getHandle('checkout/chk_a').terminate('test');
    assert.equal(await eventually(checkouts, (n) => n === 1, 10_000), 1);
  });
});
