// A test clock's advance stepping through the instants its workflows wait for, for real: the
// advance workflow and workflows living on the clock (billing time, workflows/billing-time.ts) on
// the embedded engine, with the real activities over a real database. Each wakes at its instant
// and sees the clock there, in time order; one started mid-advance is waited for; the clock is
// ready at the target only when everything due has settled.
import assert from 'node:assert/strict';
import path from 'node:path';
import pino from 'pino';
import type { Knex } from 'knex';
import { createTestClockActivities } from '../../activities/test-clocks';
import { loadConfig } from '../../config';
import { connect } from '../../db/connection';
import { createMerchant } from '../../db/merchants';
import { findTestClock, insertTestClock } from '../../db/test-clocks';
import { newId } from '../../crypto/ids';
import { testClockAdvanceWorkflowId } from '../../orchestration/starts';
import type { ServiceDeps } from '../../services/context';
import { inTransaction } from '../../services/run';
import { advanceTestClock } from '../../services/test-clocks/advance';
import { freshDatabase, type TestDatabase } from '../support/database';
import { createWorkflowEnv, type WorkflowEnv } from '../support/workflow-env';

const workflowsPath = path.resolve(__dirname, '../fixtures/workflows/clocks/index.ts');
const at = (iso: string) => Date.parse(iso);

describe('test clocks: an advance steps through what is due, in order', function () {
  this.timeout(60_000);
  let database: TestDatabase;
  let knex: Knex;
  let env: WorkflowEnv;
  let deps: ServiceDeps;
  const wakes: { workflowId: string; dueAt: number; clockNow: number }[] = [];

  before(async () => {
    database = await freshDatabase();
    knex = connect(database.url, 4);
    const log = pino({ level: 'silent' });
    const activityDeps = { db: knex, clock: { now: () => new Date() }, config: loadConfig({}), log, orchestration: () => env.port };
    env = await createWorkflowEnv({
      workflowsPath,
      activities: {
        ...createTestClockActivities(activityDeps),
        noteWake: async (wake: (typeof wakes)[number]) => {
          wakes.push(wake);
        },
      },
    });
    deps = { db: knex, clock: activityDeps.clock, config: activityDeps.config, log, workflows: env.port };
  });
  after(async () => {
    await env?.teardown();
    await knex?.destroy();
    await database?.drop();
  });

  it('wakes each workflow at its instants with the clock there, waits for one started on the way, then is ready at the target', async () => {
    const { account } = await createMerchant(knex, { name: 'Clocks', now: new Date() });
    const clock = { id: newId('testClock', Date.now()), account_id: account.id, mode: 'test' as const, name: null, frozen_time: new Date('2027-01-31T04:30:00.000Z'), advancing_to: null, created_at: new Date(), deleted_at: null };
    await insertTestClock(knex, clock);
    const start = (workflowId: string, args: unknown) => env.port.start({ workflowType: 'clockSleeper', workflowId, args: [args] });
    await start('sleeper/a', { clockId: clock.id, dueAts: [at('2027-02-28T04:30:00.000Z'), at('2027-03-31T04:30:00.000Z'), at('2027-06-30T04:30:00.000Z')] });
    await start('sleeper/b', { clockId: clock.id, dueAts: [at('2027-03-15T04:30:00.000Z')], child: { at: at('2027-03-15T04:30:00.000Z'), dueAts: [at('2027-03-16T04:30:00.000Z'), at('2027-03-31T04:30:00.000Z')] } });
    // Both have written their first wait before the advance.
    for (let i = 0; (await knex('clock_waits').where({ clock_id: clock.id })).length < 2; i++) {
      assert.ok(i < 500, 'the sleepers wait on the clock');
      await new Promise((resolve) => setTimeout(resolve, 10));
    }

    const target = new Date('2027-04-01T00:00:00.000Z');
    const advancing = await inTransaction(deps, (ctx) => advanceTestClock(ctx, clock, target));
    assert.equal(advancing.advancing_to?.toISOString(), target.toISOString());
    await env.result(testClockAdvanceWorkflowId({ id: clock.id, advancing_to: target }));

    // In time order; two due at one instant are woken at one step, in either order.
    const byTime = (a: string[], b: string[]) => (a[1]! + a[0]! < b[1]! + b[0]! ? -1 : 1);
    const seen = wakes.map((w) => [w.workflowId, new Date(w.dueAt).toISOString(), new Date(w.clockNow).toISOString()]);
    assert.deepEqual(seen.map((w) => w[1]), [...seen.map((w) => w[1])].sort(), 'woken in time order');
    assert.deepEqual([...seen].sort(byTime), [
      ['sleeper/a', '2027-02-28T04:30:00.000Z', '2027-02-28T04:30:00.000Z'],
      ['sleeper/b', '2027-03-15T04:30:00.000Z', '2027-03-15T04:30:00.000Z'],
      ['sleeper/b/child', '2027-03-16T04:30:00.000Z', '2027-03-16T04:30:00.000Z'],
      ['sleeper/a', '2027-03-31T04:30:00.000Z', '2027-03-31T04:30:00.000Z'],
      ['sleeper/b/child', '2027-03-31T04:30:00.000Z', '2027-03-31T04:30:00.000Z'],
    ]);
    const ready = (await findTestClock(knex, clock.id))!;
    assert.deepEqual([ready.frozen_time.toISOString(), ready.advancing_to], [target.toISOString(), null]);
    // The child has left the clock; a still waits, for 30 June.
    assert.deepEqual(
      (await knex('clock_waits').where({ clock_id: clock.id })).map((w) => [w.workflow_id, w.due_at.toISOString()]),
      [['sleeper/a', '2027-06-30T04:30:00.000Z']],
    );
  });

  it('a wait whose workflow no longer runs (ended without leaving, or never started) is dropped, not waited for', async () => {
    const { account } = await createMerchant(knex, { name: 'Ghosts', now: new Date() });
    const clock = { id: newId('testClock', Date.now()), account_id: account.id, mode: 'test' as const, name: null, frozen_time: new Date('2027-01-31T04:30:00.000Z'), advancing_to: null, created_at: new Date(), deleted_at: null };
    await insertTestClock(knex, clock);
    await knex('clock_waits').insert({ workflow_id: 'subscription/sub_gone', clock_id: clock.id, due_at: new Date('2027-02-28T04:30:00.000Z') });
    const target = new Date('2027-03-01T00:00:00.000Z');
    await inTransaction(deps, (ctx) => advanceTestClock(ctx, clock, target));
    await env.result(testClockAdvanceWorkflowId({ id: clock.id, advancing_to: target }));
    assert.equal((await findTestClock(knex, clock.id))!.frozen_time.toISOString(), target.toISOString());
    assert.deepEqual(await knex('clock_waits').where({ clock_id: clock.id }), []);
  });
});
