// The refund workflow's waits, in virtual time on the embedded engine with stand-in activities:
// when the processor names the moment it expects to decide (the payment's settlement), it is asked
// again exactly then; when it does not (or that moment has passed), a minute later, doubling up to
// an hour. What the activities record is tested over the real service (outcome.scenarios.ts).
import assert from 'node:assert/strict';
import type { RefundProgress } from '../../activities/refunds';
import { refundStart } from '../../orchestration/starts';
import { WORKFLOWS_PATH } from '../../workers/service';
import { createWorkflowEnv, type WorkflowEnv } from '../support/workflow-env';

const MINUTE = 60_000;

describe('refund workflow (embedded engine, stand-in activities)', () => {
  let env: WorkflowEnv;
  let started: number;
  /** Each question the workflow asked: which activity, and when (ms after the start). */
  let asked: [string, number][];
  /** The answers still to give, in order; a number is "pending, decided at this many ms after the start". */
  let answers: (Exclude<RefundProgress['status'], 'pending'> | number | null)[];

  const answer = async (activity: string): Promise<RefundProgress> => {
    const now = await env.now();
    asked.push([activity, now - started]);
    const next = answers.shift();
    if (next === undefined) throw new Error(`${activity} was not expected`);
    if (next === null) return { status: 'pending', askAt: null };
    if (typeof next === 'number') return { status: 'pending', askAt: new Date(started + next).toISOString() };
    return { status: next };
  };

  before(async () => {
    env = await createWorkflowEnv({
      workflowsPath: WORKFLOWS_PATH,
      activities: { submitRefund: () => answer('submitRefund'), settleRefund: () => answer('settleRefund') },
    });
  });
  after(() => env?.teardown());

  const run = async (id: string, script: typeof answers) => {
    answers = script;
    asked = [];
    started = await env.now();
    const start = refundStart({ id, account_id: 'acct_test', mode: 'test' });
    await env.port.start(start);
    const result = await env.result(start.workflowId);
    assert.deepEqual(answers, [], 'every answer was asked for');
    return result;
  };

  it('asks for the refund, then again at the moment the processor named, and ends with the outcome', async () => {
    assert.equal(await run('re_wf_named', [5_000, 'succeeded']), 'succeeded');
    assert.deepEqual(asked, [['submitRefund', 0], ['settleRefund', 5_000]]);
    assert.equal(await run('re_wf_failed', [90 * MINUTE, 'failed']), 'failed');
    assert.deepEqual(asked, [['submitRefund', 0], ['settleRefund', 90 * MINUTE]], 'a named moment is waited for however far (the next bank working day)');
  });

  it('decided when asked for: no wait at all', async () => {
    assert.equal(await run('re_wf_at_once', ['succeeded']), 'succeeded');
    assert.deepEqual(asked, [['submitRefund', 0]]);
  });

  it('no moment named, or one already past: a minute, then doubling up to an hour between questions', async () => {
    assert.equal(await run('re_wf_polled', [null, null, null, null, null, null, 0, null, 'succeeded']), 'succeeded');
    assert.deepEqual(asked.map(([, at]) => at / MINUTE), [0, 1, 3, 7, 15, 31, 63, 123, 183]);
    assert.deepEqual(asked.map(([activity]) => activity), ['submitRefund', ...Array<string>(8).fill('settleRefund')]);
  });
});
