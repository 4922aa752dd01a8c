// The embedded engine's wall clock: one heap of callbacks behind one Node timer.
import assert from 'node:assert/strict';
import { setTimeout as sleep } from 'node:timers/promises';
import { RealClock } from '../../workers/embedded-engine/clock';

describe('RealClock', function () {
  let clock: RealClock;
  beforeEach(function () {
    clock = new RealClock();
  });
  afterEach(function () {
    clock.clear();
  });

  it('fires callbacks in due order, same-instant ones in the order they were scheduled, whatever order they came in', async function () {
    const fired: string[] = [];
    const base = clock.now();
    // Enough entries, in a scrambled order, to move every one of them up and down the heap.
    const dues = Array.from({ length: 40 }, (_, i) => (i * 7) % 13);
    dues.forEach((offset, i) => clock.schedule(base + 20 + offset * 3, { fire: () => fired.push(`${offset}:${i}`) }));
    await sleep(120);
    const expected = dues.map((offset, i) => ({ offset, i })).sort((a, b) => a.offset - b.offset || a.i - b.i).map(({ offset, i }) => `${offset}:${i}`);
    assert.deepEqual(fired, expected);
  });

  it('does not fire before the due time', async function () {
    let firedAt = 0;
    const dueAt = clock.now() + 60;
    clock.schedule(dueAt, { fire: () => (firedAt = Date.now()) });
    await sleep(30);
    assert.equal(firedAt, 0);
    await sleep(80);
    assert.ok(firedAt >= dueAt, `fired at ${firedAt}, due at ${dueAt}`);
  });

  it('a cancelled callback never fires, also when cancelled from the top of the heap or by a callback due at the same time', async function () {
    const fired: string[] = [];
    const base = clock.now();
    const first = clock.schedule(base + 10, { fire: () => fired.push('first') });
    clock.schedule(base + 30, {
      fire: () => {
        fired.push('cancels');
        clock.cancel(victim);
      },
    });
    const victim = clock.schedule(base + 30, { fire: () => fired.push('victim') });
    clock.schedule(base + 40, { fire: () => fired.push('last') });
    clock.cancel(first);
    clock.cancel(first);
    await sleep(90);
    assert.deepEqual(fired, ['cancels', 'last']);
  });

  it('a callback scheduled by a firing one fires on a later pass, even when already due', async function () {
    const fired: string[] = [];
    let turn = 0;
    const ticker = setInterval(() => turn++, 1);
    try {
      clock.schedule(clock.now(), {
        fire: () => {
          fired.push(`outer@${turn}`);
          clock.schedule(clock.now() - 5, { fire: () => fired.push(`inner@${turn}`) });
        },
      });
      await sleep(60);
    } finally {
      clearInterval(ticker);
    }
    assert.equal(fired.length, 2);
    const [outer, inner] = fired.map((f) => Number(f.split('@')[1]));
    assert.ok(inner! > outer!, `inner fired in the same pass: ${fired.join(', ')}`);
  });

  it('an earlier callback scheduled after a later one re-arms the timer for itself', async function () {
    const fired: number[] = [];
    const base = clock.now();
    clock.schedule(base + 10_000, { fire: () => fired.push(2) });
    clock.schedule(base + 20, { fire: () => fired.push(1) });
    await sleep(70);
    assert.deepEqual(fired, [1]);
  });

  it('refuses a NaN due time, which would hold back every other callback', async function () {
    const fired: string[] = [];
    assert.throws(() => clock.schedule(NaN, { fire: () => fired.push('never') }), RangeError);
    clock.schedule(clock.now() + 10, { fire: () => fired.push('on time') });
    await sleep(50);
    assert.deepEqual(fired, ['on time']);
  });

  it('clear drops everything, and the clock keeps working after', async function () {
    const fired: string[] = [];
    clock.schedule(clock.now() + 10, { fire: () => fired.push('dropped') });
    clock.clear();
    clock.schedule(clock.now() + 20, { fire: () => fired.push('kept') });
    await sleep(70);
    assert.deepEqual(fired, ['kept']);
  });
});
