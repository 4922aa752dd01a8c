// Calls of an activity made at the same moment run as one batch (activities/batched.ts): the
// subscriptions due at one instant take their steps in one transaction. A failing batch is run
// again a call at a time, so only the call that fails sees its failure.
import assert from 'node:assert/strict';
import { batched } from '../../activities/batched';

describe('batched activity calls', () => {
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
});
