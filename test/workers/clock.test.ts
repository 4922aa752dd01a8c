// The embedded engine's clocks: one heap of callbacks each, behind one Node timer for the wall clock.
import assert from 'node:assert/strict';
import { setTimeout as sleep } from 'node:timers/promises';
import { RealClock, VirtualClock } from '../../workers/embedded-engine/clock';

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

describe('VirtualClock', function () {
  it('fires what is due in order, skips what an earlier callback cancelled, and leaves what a callback schedules for the next move', function () {
    const clock = new VirtualClock(0);
    const fired: string[] = [];
    clock.schedule(20, { fire: () => fired.push('b') });
    clock.schedule(10, {
      fire: () => {
        fired.push('a');
        clock.cancel(victim);
        clock.schedule(0, { fire: () => fired.push('scheduled while firing') });
      },
    });
    const victim = clock.schedule(20, { fire: () => fired.push('victim') });
    clock.schedule(30, { fire: () => fired.push('later') });
    assert.equal(clock.nextDueAt(), 10);
    clock.moveTo(25);
    assert.deepEqual(fired, ['a', 'b']);
    // Scheduled in the past, it is due at once: the next move fires it first.
    assert.equal(clock.nextDueAt(), 25);
    clock.moveTo(30);
    assert.deepEqual(fired, ['a', 'b', 'scheduled while firing', 'later']);
    assert.equal(clock.nextDueAt(), undefined);
  });
});
