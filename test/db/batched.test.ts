// Calls made at the same moment run as one batch (db/batched.ts): the subscriptions due at one
// instant take their steps in one transaction. A failing batch is run again a call at a time, so
// only the call that fails sees its failure. With a cap on the batches in flight, the calls made
// while they run wait and go together (a group commit).
import assert from 'node:assert/strict';
import { batched, batchedByKey } from '../../db/batched';

describe('batched calls', () => {
  it('calls made in one turn run as batches of at most `most`, each answered in order; a later call starts a batch of its own', async () => {
    const batches: number[][] = [];
    const double = batched(async (requests: number[]) => {
      batches.push(requests);
      return requests.map((n) => n * 2);
    }, 3);
    const answers = await Promise.all([1, 2, 3, 4, 5].map((n) => double(n)));
    assert.deepEqual(answers, [2, 4, 6, 8, 10]);
    assert.deepEqual(batches, [[1, 2, 3], [4, 5]]);
    assert.equal(await double(6), 12);
    assert.deepEqual(batches.at(-1), [6]);
  });

  it('a failing batch is run again a call at a time: only the call that fails is refused', async () => {
    const batches: string[][] = [];
    const shout = batched(async (requests: string[]) => {
      batches.push(requests);
      if (requests.includes('bad')) throw new Error(`refused ${requests.join(',')}`);
      return requests.map((s) => s.toUpperCase());
    }, 10);
    const outcomes = await Promise.allSettled(['a', 'bad', 'c'].map((s) => shout(s)));
    assert.deepEqual(
      outcomes.map((o) => (o.status === 'fulfilled' ? o.value : (o.reason as Error).message)),
      ['A', 'refused bad', 'C'],
    );
    assert.deepEqual(batches, [['a', 'bad', 'c'], ['a'], ['bad'], ['c']]);
  });

  it('with at most one batch in flight, the calls made while it runs wait and go together in the next; a lone call goes at once', async () => {
    const batches: number[][] = [];
    let finishFirst = () => {};
    const first = new Promise<void>((resolve) => (finishFirst = resolve));
    const square = batched(async (requests: number[]) => {
      batches.push(requests);
      if (batches.length === 1) await first;
      return requests.map((n) => n * n);
    }, 2, 1);
    const lone = square(1);
    await new Promise((resolve) => setImmediate(resolve));
    assert.deepEqual(batches, [[1]], 'the first call went alone, at once');
    const later = [2, 3, 4, 5, 6].map((n) => square(n));
    await new Promise((resolve) => setTimeout(resolve, 20));
    assert.deepEqual(batches, [[1]], 'nothing more while the first batch runs');
    finishFirst();
    assert.deepEqual(await Promise.all([lone, ...later]), [1, 4, 9, 16, 25, 36]);
    assert.deepEqual(batches, [[1], [2, 3], [4, 5], [6]], 'then one batch after another, each of at most `most`');
  });

  it('a failed batch\'s calls, run again one at a time, count as in flight until the last has run', async () => {
    const batches: string[][] = [];
    let retrying = 0;
    let most = 0;
    const shout = batched(async (requests: string[]) => {
      batches.push(requests);
      if (requests.length > 1 && requests.includes('bad')) throw new Error('refused');
      retrying++;
      most = Math.max(most, retrying);
      await new Promise((resolve) => setTimeout(resolve, 5));
      retrying--;
      if (requests.includes('bad')) throw new Error('bad');
      return requests.map((r) => r.toUpperCase());
    }, 2, 1);
    const first = ['a', 'bad'].map((r) => shout(r));
    await new Promise((resolve) => setImmediate(resolve));
    const later = shout('c');
    const outcomes = await Promise.allSettled([...first, later]);
    assert.deepEqual(outcomes.map((o) => o.status), ['fulfilled', 'rejected', 'fulfilled']);
    assert.deepEqual(batches, [['a', 'bad'], ['a'], ['bad'], ['c']], 'the later call waited for the retries');
    assert.equal(most, 2, 'only the retries of one batch ran side by side');
  });

  it('batchedByKey: each key\'s calls batched apart, one key\'s slow batch not holding up another\'s; a key called again later starts afresh', async () => {
    const batches: string[][] = [];
    let releaseSlow = () => {};
    const slow = new Promise<void>((resolve) => (releaseSlow = resolve));
    const echo = batchedByKey((r: string) => r[0]!, async (requests: string[]) => {
      batches.push(requests);
      if (requests[0] === 'a1') await slow;
      return requests;
    }, 10, 1);
    const a = ['a1', 'a2'].map((r) => echo(r));
    const b = ['b1', 'b2'].map((r) => echo(r));
    assert.deepEqual(await Promise.all(b), ['b1', 'b2'], 'b answered while a\'s batch still runs');
    releaseSlow();
    assert.deepEqual(await Promise.all(a), ['a1', 'a2']);
    assert.deepEqual(batches, [['a1', 'a2'], ['b1', 'b2']]);
    assert.equal(await echo('a3'), 'a3');
    assert.deepEqual(batches.at(-1), ['a3']);
  });
});
