// Waiting on processes that run in real time (child processes, a Temporal server): a probe
// repeated until it answers, bounded in time, failing with what it waited for; and work spread
// over a few concurrent lanes.

/** Probes until it answers something other than undefined, or fails saying what it waited for. */
export async function until<T>(what: string, timeoutMs: number, probe: () => Promise<T | undefined>, everyMs = 250): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, everyMs));
  }
}

/** Runs `task` for 0..n-1, `width` at a time. */
export async function inParallel(n: number, width: number, task: (i: number) => Promise<void>): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: width }, async () => {
      while (next < n) await task(next++);
    }),
  );
}
