// The heap a benchmark counts: shared by the embedded engine's and the billing benchmarks.

/**
 * The heap in use after enough full collections for V8 to flush the bytecode nothing ran lately
 * (it does so once a function has gone unused through five of them): in `npm run bench`, code of
 * the earlier benchmarks would otherwise be flushed between the two readings.
 */
export function settledHeapUsed(): number {
  const gc = (globalThis as { gc?: () => void }).gc;
  for (let i = 0; i < 7 && gc; i++) gc();
  return process.memoryUsage().heapUsed;
}

/** What to add to a heap figure's line when node runs without --expose-gc. */
export function gcNote(): string {
  return (globalThis as { gc?: unknown }).gc ? '' : ' (run node with --expose-gc for a steadier figure)';
}
