// The dispatcher on its own, over a real database: a workflow start the orchestration refuses is
// kept and made on the next pass, not left until the next boot.
import assert from 'node:assert/strict';
import pino from 'pino';
import { connect } from '../../db/connection';
import { recordEvent } from '../../db/events';
import { createMerchant } from '../../db/merchants';
import { createWebhookEndpoint } from '../../db/webhook-endpoints';
import type { OrchestrationPort, WorkflowStart } from '../../orchestration';
import { startWebhookDispatcher } from '../../workers/webhook-dispatcher';
import { freshDatabase, type TestDatabase } from '../support/database';

describe('webhook dispatcher', () => {
  let database: TestDatabase;
  let knex: ReturnType<typeof connect>;

  before(async () => {
    database = await freshDatabase();
    knex = connect(database.url, 4);
  });
  after(async () => {
    await knex.destroy();
    await database.drop();
  });

  it('retries a workflow start that failed on its next pass, and starts each delivery once', async () => {
    const now = new Date();
    const { account } = await createMerchant(knex, { name: 'Dispatch', now });
    await createWebhookEndpoint(knex, { accountId: account.id, mode: 'test', url: 'https://hooks.example.com/a', eventTypes: null, key: Buffer.alloc(32, 1), now });
    const started: WorkflowStart[] = [];
    let refuse = true;
    const port = {
      engine: 'embedded',
      async start(start: WorkflowStart) {
        if (refuse) throw new Error('orchestration unreachable');
        started.push(start);
        return { workflowId: start.workflowId, runId: 'run', started: true };
      },
    } as unknown as OrchestrationPort;
    const dispatcher = await startWebhookDispatcher({ db: knex, databaseUrl: database.url, port, clock: { now: () => new Date() }, log: pino({ level: 'silent' }) });
    try {
      await knex.transaction((trx) => recordEvent(trx, { accountId: account.id, mode: 'test', type: 'payment.succeeded', data: {}, now }));
      await assert.rejects(dispatcher.drain(), /orchestration unreachable/);
      const [delivery] = await knex('webhook_deliveries').select('id');
      assert.ok(delivery, 'the delivery is committed even though its workflow did not start');
      assert.ok((await knex('events').whereNull('dispatched_at')).length === 0);
      refuse = false;
      await dispatcher.drain();
      assert.deepEqual(started.map((s) => s.workflowId), [`webhook-delivery/${delivery.id}`]);
      await dispatcher.drain();
      assert.equal(started.length, 1, 'started once');
    } finally {
      await dispatcher.stop();
    }
  });

  it('an event of an account and mode without an enabled endpoint is written dispatched; with one, it waits for the dispatcher', async () => {
    const now = new Date();
    const { account } = await createMerchant(knex, { name: 'Quiet', now });
    // An endpoint of the other mode, and a disabled one of this mode, take nothing of test mode.
    await createWebhookEndpoint(knex, { accountId: account.id, mode: 'live', url: 'https://hooks.example.com/live', eventTypes: null, key: Buffer.alloc(32, 1), now });
    const { endpoint: disabled } = await createWebhookEndpoint(knex, { accountId: account.id, mode: 'test', url: 'https://hooks.example.com/off', eventTypes: null, key: Buffer.alloc(32, 1), now });
    await knex('webhook_endpoints').where({ id: disabled.id }).update({ enabled: false });
    const record = () => knex.transaction((trx) => recordEvent(trx, { accountId: account.id, mode: 'test', type: 'payment.succeeded', data: { n: 1 }, now }));
    const quiet = await record();
    assert.deepEqual(await knex('events').where({ id: quiet.id }).first('dispatched_at'), { dispatched_at: now });
    await knex('webhook_endpoints').where({ id: disabled.id }).update({ enabled: true });
    const heard = await record();
    assert.deepEqual(await knex('events').where({ id: heard.id }).first('dispatched_at'), { dispatched_at: null });
  });
});
