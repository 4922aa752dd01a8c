// The workflows kept in the sandbox, as a Temporal worker's workflow cache keeps them: at most
// maxCachedWorkflows, the least recently used evicted first, a run going to sleep for long
// evicted right after its task, and one waiting for a signal only evicted before the others. An
// evicted run is rebuilt when it next has work (WorkflowTasks.rehydrate).
import { getHeapStatistics } from 'node:v8';
import type { BackgroundWork } from './background-work';
import type { Clock } from './clock';
import type { Run } from './run';

/** A run whose next wake-up is at least this far off is evicted from the cache right away. */
const LONG_SLEEP_MS = 60_000;

/**
 * What a cached run's sandbox costs, rounded up from a measure: a renewal storm of 10,000
 * subscriptions, each woken with its step to take, took 418 MB more at its peak (RSS) with all of
 * them cached than with 2,000.
 */
const CACHED_RUN_BYTES = 48 * 1024;

/**
 * The cache's size unless stated: an eighth of the heap's limit in cached runs (some 11,000 with
 * Node's default limit on this machine's 24 GB), at least 500. As a Temporal worker sizes its own
 * from the heap; sized down, a storm's runs are evicted while their activities wait their turn and
 * rebuilt when they finish (a 10,000 storm: 178 renewals a second with 2,000 cached, 234 with all).
 */
export function defaultMaxCachedWorkflows(): number {
  return Math.max(500, Math.floor(getHeapStatistics().heap_size_limit / 8 / CACHED_RUN_BYTES));
}

/** How a run waits after its task: for work soon, for a timer a minute or more away, or for a signal only. */
type Wait = 'soon' | 'long' | 'signal';

export class WorkflowCache {
  /** Open runs whose sandbox is alive, waiting for something soon, least recently used first. */
  private readonly cached = new Set<Run>();
  /**
   * Those with nothing due soon, least recently used first: evicted before any of the others. Most
   * wait for a signal only (a run sleeping long is evicted right after its task, and is here only
   * when rebuilt for a query). A signal may come at any moment (a test clock's advance wakes every
   * workflow on the clock at once, a renewal storm 10,000 of them), so they stay while there is
   * room, but they are the likeliest to sleep on.
   */
  private readonly waiting = new Set<Run>();

  constructor(
    private readonly clock: Clock,
    private readonly maxCachedWorkflows: number,
    private readonly work: BackgroundWork,
  ) {}

  /**
   * After a run's task (inside its turn): a run that will sleep long (only timers a minute or more
   * away to wait for) is evicted at once, while its sandbox is still young garbage and cheap to
   * collect; the others are marked as just used.
   */
  async afterTask(run: Run): Promise<void> {
    if (!run.open || run.workflow === undefined) return;
    const wait = this.waitOf(run);
    if (wait !== 'long') {
      this.touch(run, wait === 'signal');
      return;
    }
    this.forget(run);
    await this.disposeSandbox(run);
  }

  /**
   * Marks the run as just used (`waiting`: with nothing due soon, so among the first to go; unsaid,
   * as the run stands); evicts the least recently used idle runs past the cache size, those
   * waiting first.
   */
  touch(run: Run, waiting = this.waitOf(run) !== 'soon'): void {
    if (!run.open) return;
    this.forget(run);
    (waiting ? this.waiting : this.cached).add(run);
    while (this.cached.size + this.waiting.size > this.maxCachedWorkflows) {
      const oldest = (this.waiting.size > 0 ? this.waiting : this.cached).values().next().value!;
      this.forget(oldest);
      this.evictWhenIdle(oldest);
    }
  }

  /** The run closed: its sandbox goes once its turn comes. */
  remove(run: Run): void {
    this.forget(run);
    this.work.trackActivation(run.exclusive(() => this.disposeSandbox(run)));
  }

  async disposeSandbox(run: Run): Promise<void> {
    const workflow = run.workflow;
    run.workflow = undefined;
    // A run that sleeps keeps its history and activations encoded until it wakes.
    if (run.open) {
      run.history.pack();
      run.replay.pack();
    }
    await workflow?.dispose();
  }

  private forget(run: Run): void {
    this.cached.delete(run);
    this.waiting.delete(run);
  }

  private waitOf(run: Run): Wait {
    if (run.activities || run.children || run.inbox) return 'soon';
    const wakeAfter = this.clock.now() + LONG_SLEEP_MS;
    let timers = 0;
    for (const { timer } of run.timers?.values() ?? []) {
      if (timer.dueAt < wakeAfter) return 'soon';
      timers++;
    }
    return timers > 0 ? 'long' : 'signal';
  }

  private evictWhenIdle(run: Run): void {
    this.work.trackActivation(
      run.exclusive(async () => {
        // Work arrived meanwhile: it keeps its sandbox (and is looked at again after its task).
        if (run.drainScheduled || run.inbox || !run.open) return;
        await this.disposeSandbox(run);
      }),
    );
  }
}
