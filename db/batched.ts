// Calls of one kind made at the same moment, run as one, so that their database work is a few
// statements for all of them rather than a few each: the subscriptions due at one instant of a
// test clock or of wall time take their steps in one transaction, a burst of refunds is asked of
// the processor in one call. A batch that fails is run again a call at a time, so one call's
// failure is its own.

interface Waiting<Req, Res> {
  request: Req;
  resolve: (result: Res) => void;
  reject: (err: unknown) => void;
}

/**
 * One request at a time for the caller; `run` is given every request made in the same turn of the
 * event loop, at most `most` at once, and answers each in order. With `inFlight`, at most that many
 * batches run at once and the requests made meanwhile wait for the next: under load the batches
 * grow instead of their number (a group commit), while a lone request still goes at once.
 * `onIdle` is called when the last batch has ended and none waits.
 */
export function batched<Req, Res>(run: (requests: Req[]) => Promise<Res[]>, most: number, inFlight = Infinity, onIdle?: () => void): (request: Req) => Promise<Res> {
  const waiting: Waiting<Req, Res>[] = [];
  let running = 0;
  let flushing = false;
  const runBatch = async (batch: Waiting<Req, Res>[]): Promise<void> => {
    try {
      const results = await run(batch.map((w) => w.request));
      batch.forEach((w, i) => w.resolve(results[i]!));
    } catch (err) {
      if (batch.length === 1) return batch[0]!.reject(err);
      // Counted in flight until the last has run.
      await Promise.all(batch.map((w) => runBatch([w])));
    }
  };
  const flush = () => {
    flushing = false;
    while (waiting.length > 0 && running < inFlight) {
      running++;
      void runBatch(waiting.splice(0, most)).finally(() => {
        running--;
        flush();
        if (running === 0 && waiting.length === 0) onIdle?.();
      });
    }
  };
  return (request) =>
    new Promise<Res>((resolve, reject) => {
      if (!flushing) {
        flushing = true;
        setImmediate(flush);
      }
      waiting.push({ request, resolve, reject });
    });
}

/**
 * batched, the requests of each key (`keyOf`) in batches of their own: one key's slow batch never
 * holds up another's. A key's batcher is dropped once idle.
 */
export function batchedByKey<Req, Res>(keyOf: (request: Req) => string, run: (requests: Req[]) => Promise<Res[]>, most: number, inFlight = Infinity): (request: Req) => Promise<Res> {
  const byKey = new Map<string, (request: Req) => Promise<Res>>();
  return (request) => {
    const key = keyOf(request);
    let batcher = byKey.get(key);
    if (batcher === undefined) {
      batcher = batched(run, most, inFlight, () => byKey.delete(key));
      byKey.set(key, batcher);
    }
    return batcher(request);
  };
}

const perPool = new WeakMap<object, Map<string, unknown>>();

/**
 * The batcher named `name` for the pool `db`, made by `make` the first time: one per pool, as its
 * batches run on that pool's connections.
 */
export function batcherOf<T>(db: object, name: string, make: () => T): T {
  const ofPool = perPool.get(db) ?? new Map<string, unknown>();
  perPool.set(db, ofPool);
  if (!ofPool.has(name)) ofPool.set(name, make());
  return ofPool.get(name) as T;
}
