// Calls of one activity made at the same moment, run as one: the subscriptions due at one instant
// of a test clock or of wall time take their steps in one transaction instead of one each. A batch
// that fails is run again a call at a time, so one call's failure is its own.

interface Waiting<Req, Res> {
  request: Req;
  resolve: (result: Res) => void;
  reject: (err: unknown) => void;
}

/**
 * One request at a time for the caller; `run` is given every request made in the same turn of the
 * event loop, at most `most` at once, and answers each in order.
 */
export function batched<Req, Res>(run: (requests: Req[]) => Promise<Res[]>, most: number): (request: Req) => Promise<Res> {
  let waiting: Waiting<Req, Res>[] = [];
  const runBatch = async (batch: Waiting<Req, Res>[]): Promise<void> => {
    try {
      const results = await run(batch.map((w) => w.request));
      batch.forEach((w, i) => w.resolve(results[i]!));
    } catch (err) {
      if (batch.length === 1) return batch[0]!.reject(err);
      for (const w of batch) void runBatch([w]);
    }
  };
  const flush = () => {
    const all = waiting;
    waiting = [];
    for (let i = 0; i < all.length; i += most) void runBatch(all.slice(i, i + most));
  };
  return (request) =>
    new Promise<Res>((resolve, reject) => {
      if (waiting.length === 0) setImmediate(flush);
      waiting.push({ request, resolve, reject });
    });
}
