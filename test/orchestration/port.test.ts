// The orchestration port: its contract (port-contract.ts, which port.time-skipping.test.ts runs on
// the Temporal port too) on the embedded engine, and what only the embedded mode does at start-up.
import assert from 'node:assert/strict';
import path from 'node:path';
import { portContract } from './port-contract';
import { startOrchestration } from '../../workers/orchestration';

portContract('orchestration port (embedded)', 'embedded');

describe('orchestration (embedded): start-up', function () {
  it('says plainly at start-up that the embedded mode is for one machine and production runs on Temporal', async function () {
    const logged: string[] = [];
    const log = { debug() {}, info() {}, warn: (_: unknown, m: string) => logged.push(m), error: (_: unknown, m: string) => logged.push(m) };
    const workflowsPath = path.resolve(__dirname, '../fixtures/workflows/index.ts');
    const orchestration = await startOrchestration({ workflowsPath, activities: {}, clock: 'virtual', log });
    try {
      assert.equal(orchestration.port.engine, 'embedded');
      assert.ok(logged.some((m) => /for one machine/.test(m) && /Production runs on Temporal/.test(m)), logged.join('\n'));
    } finally {
      await orchestration.stop();
    }
  });
});
