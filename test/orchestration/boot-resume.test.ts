// Boot-time restart: the embedded engine keeps nothing across restarts, so on boot the resumers
// read every non-final object from Postgres and restart its workflow. A fixture table in a real
// PostgreSQL (a fresh test database) stands in for the business tables.
import assert from 'node:assert/strict';
import path from 'node:path';
import { Client } from 'pg';
import { workflowIdFor } from '../../orchestration/ids';
import type { WorkflowStart } from '../../orchestration/port';
import { startOrchestration } from '../../workers/orchestration';
import type { Orchestration, Resumer } from '../../workers/orchestration';
import { silentLog } from '../../workers/embedded-engine/log';
import { freshDatabase, type TestDatabase } from '../support/database';

const workflowsPath = path.resolve(__dirname, '../fixtures/workflows/index.ts');
const MINUTE = 60_000;

describe('orchestration: boot-time restart from database state', function () {
  let database: TestDatabase;
  let db: Client;
  let orchestration: Orchestration | undefined;

  before(async function () {
    database = await freshDatabase();
    db = new Client({ connectionString: database.url });
    await db.connect();
    await db.query(`CREATE TABLE fixture_checkouts (id text PRIMARY KEY, status text NOT NULL, expires_at timestamptz NOT NULL)`);
  });

  after(async function () {
    await orchestration?.stop();
    await db?.end();
    await database?.drop();
  });

  /** Every open checkout's lifetime workflow, with the time it has left. */
  const openCheckouts: Resumer = async () => {
    const { rows } = await db.query<{ id: string; expires_at: Date }>(`SELECT id, expires_at FROM fixture_checkouts WHERE status = 'open' ORDER BY id`);
    const now = orchestration?.engine?.clock.now() ?? Date.UTC(2025, 0, 1);
    return rows.map((row): WorkflowStart => ({
      workflowType: 'checkoutLifetime',
      workflowId: workflowIdFor('checkout', row.id),
      args: [row.id, Math.max(row.expires_at.getTime() - now, 1)],
      accountId: 'acct_test',
      mode: 'test',
    }));
  };

  const activities = {
    // A conditional UPDATE from the expected status: a repeated call changes nothing twice.
    async record(label: string) {
      const [id, status] = label.split(':');
      await db.query(`UPDATE fixture_checkouts SET status = $2 WHERE id = $1 AND status = 'open'`, [id, status]);
      return label;
    },
  };

  const boot = () => startOrchestration({ workflowsPath, activities, clock: 'virtual', log: silentLog, resumers: [openCheckouts] });

  it('restarts the workflow of every non-final object on boot, and the schedules carry on', async function () {
    const start = Date.UTC(2025, 0, 1);
    await db.query(`INSERT INTO fixture_checkouts VALUES ('chk_a', 'open', $1), ('chk_b', 'paid', $1), ('chk_c', 'open', $2)`, [
      new Date(start + 30 * MINUTE),
      new Date(start + 10 * MINUTE),
    ]);
    orchestration = await boot();
    assert.equal(orchestration.resumed, 2);
    assert.equal((await orchestration.port.describe('checkout/chk_a'))?.status, 'RUNNING');
    assert.equal(await orchestration.port.describe('checkout/chk_b'), undefined, 'a final object gets no workflow');

    // Running the resumers again (a second boot hook, a retry) is harmless.
    assert.deepEqual((await Promise.all((await openCheckouts()).map((s) => orchestration!.port.start(s)))).map((r) => r.started), [false, false]);

    await orchestration.engine!.advance(15 * MINUTE);
    const afterChkC = await db.query(`SELECT id, status FROM fixture_checkouts ORDER BY id`);
    assert.deepEqual(afterChkC.rows, [
      { id: 'chk_a', status: 'open' },
      { id: 'chk_b', status: 'paid' },
      { id: 'chk_c', status: 'expired' },
    ]);
  });

  it('after a restart only the still non-final objects are resumed, with the time they have left', async function () {
    await orchestration!.stop();
    orchestration = await boot();
    assert.equal(orchestration.resumed, 1);
    const [only] = await openCheckouts();
    assert.equal(only?.workflowId, 'checkout/chk_a');
    await orchestration.engine!.advance(30 * MINUTE);
    const { rows } = await db.query(`SELECT status FROM fixture_checkouts WHERE id = 'chk_a'`);
    assert.equal(rows[0]?.status, 'expired');
    await orchestration.stop();
    orchestration = await boot();
    assert.equal(orchestration.resumed, 0);
  });
});
