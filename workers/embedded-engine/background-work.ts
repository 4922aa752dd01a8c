// The engine's work in progress: activations (quick) and activity attempts (may take real time).
// Each is tracked so that settle() can wait for it and a failure inside one is never lost.
import type { EngineLog } from './log';

export class BackgroundWork {
  /** Set by shutdown: from then on nothing new is queued for a run. */
  stopped = false;
  private readonly activations = new Set<Promise<unknown>>();
  private readonly attempts = new Set<Promise<unknown>>();
  private fatal?: unknown;

  constructor(
    private readonly log: EngineLog,
    private readonly hungActivityAfterMs: number,
  ) {}

  trackActivation(promise: Promise<unknown>): void {
    this.track(promise, this.activations);
  }

  trackAttempt(promise: Promise<unknown>): void {
    this.track(promise, this.attempts);
  }

  /** Waits until no activation is pending and no activity is running (hung ones aside). */
  async settle(): Promise<void> {
    for (;;) {
      if (this.fatal) throw this.fatal;
      if (this.activations.size > 0) {
        await Promise.all(this.activations);
        continue;
      }
      if (this.attempts.size === 0) return;
      let timer: NodeJS.Timeout | undefined;
      const hung = new Promise<boolean>((resolve) => {
        timer = setTimeout(() => resolve(true), this.hungActivityAfterMs);
      });
      const moved = await Promise.race([Promise.race(this.attempts).then(() => false), hung]);
      clearTimeout(timer);
      if (moved) return;
    }
  }

  /** Shutdown: the activations under way finish; attempts are not waited for (an activity may ignore cancellation). */
  async activationsSettled(): Promise<void> {
    await Promise.allSettled([...this.activations]);
  }

  private track(promise: Promise<unknown>, set: Set<Promise<unknown>>): void {
    const tracked = promise.then(
      () => undefined,
      (err: unknown) => {
        this.fatal ??= err;
        this.log.error({ error: err instanceof Error ? err.stack : String(err) }, 'embedded engine internal error');
      },
    );
    set.add(tracked);
    void tracked.finally(() => set.delete(tracked));
  }
}
