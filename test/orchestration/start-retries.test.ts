// A workflow start that fails after its object was committed is retried in the background until it
// succeeds, logged and counted (orchestration/start-retries.ts). The service's own engine is made to
// refuse the first start (at the edge, under everything Kasi wraps around it), the way a Temporal
// server that is away or refuses a start does; then the retry loop alone, with a start that fails
// several times, for its backoff.
import assert from 'node:assert/strict';
import { Writable } from 'node:stream';
import { WorkflowStartRetryingError } from '../../orchestration/errors';
import type { OrchestrationPort, WorkflowStart } from '../../orchestration/port';
import { retryFailedStarts } from '../../orchestration/start-retries';
import { workflowIdFor } from '../../orchestration/ids';
import { eventually } from '../support/eventually';
import { ik, startApi, type TestApi } from '../support/api';

/** The value of a sample in Prometheus text, or undefined when it is not there. */
function sample(text: string, line: RegExp): number | undefined {
  const found = text.split('\n').find((l) => line.test(l));
  return found === undefined ? undefined : Number(found.split(' ').pop());
}

describe('a workflow start that fails after commit', function () {
  this.timeout(60_000);
  let api: TestApi | undefined;
  const logged: { level: number; msg: string; workflowId?: string }[] = [];

  before(async () => {
    const logStream = new Writable({
      write(chunk: Buffer, _encoding, done) {
        for (const line of chunk.toString('utf8').split('\n').filter(Boolean)) logged.push(JSON.parse(line));
        done();
      },
    });
    api = await startApi({ env: { LOG_LEVEL: 'info' }, logStream });
  });
  after(() => api?.close());

  it('answers 201 at once, is logged, retried in the background until the workflow runs, and counted in /metrics', async () => {
    const { keys } = await api!.merchant({ activate: true });
    const metrics = async () => (await fetch(`${api!.url}/metrics`)).text();
    const failuresBefore = sample(await metrics(), /^kasi_workflow_start_failures_total\{workflow_type="checkoutLifetime"\} /) ?? 0;
    // The engine refuses the next start once, as a server that is away does.
    const engine = api!.engine;
    const start = engine.start.bind(engine);
    let refused = 0;
    engine.start = (options) => {
      if (refused === 0 && options.workflowType === 'checkoutLifetime') {
        refused++;
        throw new Error('14 UNAVAILABLE: the server went away');
      }
      return start(options);
    };
    const res = await api!.request('/v1/checkouts', { key: keys.sk_test, idempotencyKey: ik('retry'), body: { amountCents: 150000, description: 'Tea' } });
    assert.equal(res.status, 201, res.text);
    assert.equal(refused, 1, 'the first start was refused');
    const workflowId = workflowIdFor('checkout', res.body.id);
    assert.equal(engine.describe(workflowId), undefined, 'no workflow yet');

    const text = await metrics();
    assert.equal(sample(text, /^kasi_workflow_start_failures_total\{workflow_type="checkoutLifetime"\} /), failuresBefore + 1, text);
    assert.equal(sample(text, /^kasi_workflow_starts_awaiting_retry /), 1);
    assert.ok(logged.some((l) => l.level === 50 && l.workflowId === workflowId && /retrying in the background/.test(l.msg)), 'logged as an error');

    // The retry, a second later, starts it.
    assert.equal(await eventually(async () => engine.describe(workflowId)?.status, (status) => status === 'RUNNING', 10_000), 'RUNNING');
    assert.equal(sample(await metrics(), /^kasi_workflow_starts_awaiting_retry /), 0);
    assert.ok(logged.some((l) => l.workflowId === workflowId && /started on a retry/.test(l.msg)));
  });
});

describe('the retry loop', function () {
  const start: WorkflowStart = { workflowType: 'checkoutLifetime', workflowId: 'checkout/chk_x', args: [] };
  const silent = { debug() {}, info() {}, warn() {}, error() {} };

  it('backs off, doubling up to its cap, until the start succeeds; the caller is answered at once', async () => {
    const attempts: number[] = [];
    let failuresLeft = 4;
    const port = {
      async start() {
        attempts.push(Date.now());
        if (failuresLeft-- > 0) throw new Error('UNAVAILABLE');
        return { workflowId: start.workflowId, runId: 'r', started: true };
      },
    } as unknown as OrchestrationPort;
    const retries = retryFailedStarts(port, { log: silent, firstDelayMs: 40, maxDelayMs: 100 });
    try {
      await assert.rejects(retries.port.start(start), WorkflowStartRetryingError);
      assert.equal(retries.awaiting(), 1);
      assert.equal(await eventually(async () => attempts.length, (n) => n === 5, 5_000), 5);
      assert.equal(await eventually(async () => retries.awaiting(), (n) => n === 0, 1_000), 0);
      const gaps = attempts.slice(1).map((at, i) => at - attempts[i]!);
      // 40, 80, then capped at 100 (timers fire late, never early).
      [40, 80, 100, 100].forEach((least, i) => assert.ok(gaps[i]! >= least - 5 && gaps[i]! < least + 200, `gap ${i}: ${gaps.join(', ')}`));
    } finally {
      retries.stop();
    }
  });

  it('a start of the same workflow that succeeds another way ends its retry; stop drops what waits', async () => {
    let fail = true;
    let calls = 0;
    const port = {
      async start() {
        calls++;
        if (fail) throw new Error('UNAVAILABLE');
        return { workflowId: start.workflowId, runId: 'r', started: true };
      },
    } as unknown as OrchestrationPort;
    const retries = retryFailedStarts(port, { log: silent, firstDelayMs: 60_000 });
    await assert.rejects(retries.port.start(start), WorkflowStartRetryingError);
    fail = false;
    await retries.port.start(start);
    assert.equal(retries.awaiting(), 0);
    fail = true;
    await assert.rejects(retries.port.start({ ...start, workflowId: 'checkout/chk_y' }), WorkflowStartRetryingError);
    assert.equal(retries.awaiting(), 1);
    retries.stop();
    assert.equal(retries.awaiting(), 0);
    assert.equal(calls, 3);
  });
});
