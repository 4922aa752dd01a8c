// A small deterministic generator (mulberry32), so a failing run can be run again from its seed,
// with the draws the randomized and property tests make.
export function random(seed: number): () => number {
  let a = seed;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** Draws from `next`: an integer in [min, max], one of `values`, true with probability `p`. */
export function draws(next: () => number) {
  const int = (min: number, max: number) => min + Math.floor(next() * (max - min + 1));
  const pick = <T>(values: readonly T[]): T => values[int(0, values.length - 1)]!;
  const chance = (p: number) => next() < p;
  return { int, pick, chance };
}
