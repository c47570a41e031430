/** A background job run every `everyMs` by the `Scheduler`. */
export interface ScheduledJob {
  /** Shown in logs. */
  readonly name: string;
  /** Pause between the end of one run and the start of the next, ms. */
  readonly everyMs: number;
  run(): Promise<void>;
}

/**
 * Runs `batch` (one bounded statement that answers how many rows it handled) until a run handles fewer than
 * `full` rows or `budget` runs are spent, yielding to the event loop between runs so requests are served
 * meanwhile; answers the budget left (jobs that share one budget over several kinds of batch pass it on).
 */
export async function inBatches(batch: () => Promise<number>, full: number, budget: number): Promise<number> {
  while (budget > 0) {
    budget--;
    if ((await batch()) < full) break;
    await new Promise((resolve) => setImmediate(resolve));
  }
  return budget;
}

/**
 * Runs background jobs (scheduled key rotations, flushing key last-use times; later usage-limit
 * resets and retention) on timers that never keep the process alive. A job never overlaps itself: its
 * next run is timed from the end of the previous one. A failed run is reported to `onError` and the
 * job runs again at its next turn. Work that must happen once across replicas is the job's own
 * business (a conditional UPDATE, a lock): every replica runs every job.
 */
export class Scheduler {
  private readonly jobs: ScheduledJob[] = [];
  private readonly timers = new Map<ScheduledJob, NodeJS.Timeout>();
  private readonly running = new Set<Promise<void>>();
  private started = false;
  private stopped = false;

  constructor(private readonly onError: (job: string, err: unknown) => void) {}

  /** Adds a job; jobs added after `start` begin at once. */
  add(job: ScheduledJob): void {
    if (!Number.isFinite(job.everyMs) || job.everyMs <= 0) throw new Error(`job ${job.name}: everyMs must be a positive number`);
    this.jobs.push(job);
    if (this.started && !this.stopped) this.arm(job);
  }

  /** Starts every job (its first run after one interval). */
  start(): void {
    if (this.started) return;
    this.started = true;
    for (const job of this.jobs) this.arm(job);
  }

  /** Runs one job now (outside its timer), reporting a failure like a timed run. */
  runNow(job: ScheduledJob): Promise<void> {
    const run = job.run().catch((err) => this.onError(job.name, err));
    this.running.add(run);
    return run.finally(() => this.running.delete(run));
  }

  /** Runs every job once now, one after the other (tests; an operator's nudge). */
  async runAll(): Promise<void> {
    for (const job of this.jobs) await this.runNow(job);
  }

  /** Stops the timers and waits for runs in progress. */
  async stop(): Promise<void> {
    this.stopped = true;
    for (const t of this.timers.values()) clearTimeout(t);
    this.timers.clear();
    await Promise.all([...this.running]);
  }

  private arm(job: ScheduledJob): void {
    const timer = setTimeout(() => {
      this.timers.delete(job);
      void this.runNow(job).then(() => {
        if (!this.stopped) this.arm(job);
      });
    }, job.everyMs);
    timer.unref();
    this.timers.set(job, timer);
  }
}
