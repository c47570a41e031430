/**
 * The worker thread that runs user-supplied regular expressions (see safe-regex.ts). RE2 (re2-wasm)
 * matches in time linear in the subject, but its constant grows with the compiled pattern: a short
 * adversarial pattern can still take seconds on a long text, and a large one can exhaust the fixed
 * 16 MiB wasm heap, after which that wasm instance is dead. So patterns are compiled and matched in
 * a worker: every job has a time budget; a job that exceeds it is rejected and the worker is replaced
 * (the other queued jobs are sent to the new one). The event loop of the gateway is never held.
 */
import { Worker } from 'node:worker_threads';
import { createRequire } from 'node:module';

/** Where a pattern matched: UTF-16 index and the matched text. */
export interface RegexMatch {
  index: number;
  text: string;
}

/** Compiled patterns the worker keeps (least recently used evicted, freeing their wasm memory). */
const WORKER_CACHE_SIZE = 256;

/**
 * The worker's code (CommonJS, evaluated by `new Worker(..., { eval: true })`, so it needs no file of
 * its own in src/ or dist/). `wrapper.match(text, 0, false)` is re2-wasm's matcher without capture
 * groups: the whole-match span only, which RE2 finds with its DFA instead of the much slower NFA.
 */
const WORKER_SOURCE = `
const { parentPort, workerData } = require('node:worker_threads');
const { RE2 } = require(workerData.re2Path);
const cache = new Map();
new RE2('warm', 'u').wrapper.match('up', 0, false);
parentPort.postMessage({ ready: true });
function compiled(source, flags) {
  const key = flags + '/' + source;
  let re = cache.get(key);
  if (re) { cache.delete(key); cache.set(key, re); return re; }
  re = new RE2(source, flags + 'u');
  if (cache.size >= workerData.cacheSize) {
    const [oldKey, old] = cache.entries().next().value;
    cache.delete(oldKey);
    old.wrapper.delete();
  }
  cache.set(key, re);
  return re;
}
parentPort.on('message', (job) => {
  try {
    const re = compiled(job.source, job.flags);
    if (job.subjects !== undefined) {
      const each = job.subjects.map((s) => re.wrapper.match(s, 0, false).index >= 0);
      return parentPort.postMessage({ id: job.id, ok: true, each });
    }
    if (job.subject === undefined) return parentPort.postMessage({ id: job.id, ok: true, match: null });
    const m = re.wrapper.match(job.subject, 0, false);
    parentPort.postMessage({ id: job.id, ok: true, match: m.index >= 0 ? { index: m.index, text: m.match } : null });
  } catch (err) {
    const message = String((err && err.message) || err);
    parentPort.postMessage({ id: job.id, ok: false, error: message });
    // An aborted wasm instance (out of memory) cannot be used again: let the host start a new worker.
    if (/abort\\(|OOM/.test(message)) process.exit(1);
  }
});
`;

interface Job {
  id: number;
  source: string;
  flags: string;
  subject?: string;
  subjects?: readonly string[];
  budgetMs: number;
  resolve(answer: RegexMatch | null | boolean[]): void;
  reject(err: Error): void;
  /** Set once the job was sent to a ready worker: the budget runs from then. */
  timer?: NodeJS.Timeout;
}

interface Reply {
  id?: number;
  ready?: boolean;
  ok?: boolean;
  match?: RegexMatch | null;
  each?: boolean[];
  error?: string;
}

/** Why a job did not produce an answer: the budget ran out, or RE2 refused the pattern. */
export class RegexJobError extends Error {
  constructor(
    message: string,
    readonly reason: 'timeout' | 'engine',
  ) {
    super(message);
    this.name = 'RegexJobError';
  }
}

/**
 * One worker thread, started on first use, unref'd (it never keeps the process alive), replaced
 * when a job overruns its budget or the worker dies. A job's budget runs from when it is handed to a
 * ready worker, so the worker's start (loading the wasm module) never counts against it.
 */
export class RegexWorkerHost {
  private worker: Worker | null = null;
  private ready = false;
  private readonly jobs = new Map<number, Job>();
  private nextId = 1;
  private readonly re2Path = createRequire(import.meta.url).resolve('re2-wasm');

  /** Starts the worker if needed and compiles `source` in it ahead of use (errors surface on the first match). */
  prepare(source: string, flags: string): void {
    this.submit(source, flags, undefined, 5_000).catch(() => undefined);
  }

  /** Matches `subject` against the pattern within `budgetMs`; rejects with RegexJobError. */
  match(source: string, flags: string, subject: string, budgetMs: number): Promise<RegexMatch | null> {
    return this.submit(source, flags, subject, budgetMs) as Promise<RegexMatch | null>;
  }

  /** Whether the pattern matches each of `subjects`, all within one `budgetMs`; rejects with RegexJobError. */
  testEach(source: string, flags: string, subjects: readonly string[], budgetMs: number): Promise<boolean[]> {
    return this.submit(source, flags, undefined, budgetMs, subjects) as Promise<boolean[]>;
  }

  /** Stops the worker; pending jobs are rejected. */
  async close(): Promise<void> {
    for (const job of this.jobs.values()) this.finish(job, new RegexJobError('regular expression worker stopped', 'engine'));
    const w = this.worker;
    this.worker = null;
    this.ready = false;
    await w?.terminate();
  }

  private submit(
    source: string,
    flags: string,
    subject: string | undefined,
    budgetMs: number,
    subjects?: readonly string[],
  ): Promise<RegexMatch | null | boolean[]> {
    return new Promise((resolve, reject) => {
      const job: Job = { id: this.nextId++, source, flags, subject, subjects, budgetMs, resolve, reject };
      this.jobs.set(job.id, job);
      if (this.worker && this.ready) this.dispatch(this.worker, job);
      else if (!this.worker) this.spawn();
    });
  }

  private dispatch(w: Worker, job: Job): void {
    job.timer = setTimeout(() => this.overrun(job.id), job.budgetMs);
    w.postMessage({ id: job.id, source: job.source, flags: job.flags, subject: job.subject, subjects: job.subjects });
  }

  private spawn(): void {
    const w = new Worker(WORKER_SOURCE, {
      eval: true,
      workerData: { re2Path: this.re2Path, cacheSize: WORKER_CACHE_SIZE },
      stdout: true,
      stderr: true,
      resourceLimits: { maxOldGenerationSizeMb: 128 },
    });
    // wasm abort diagnostics: the message comes back with the job; the raw streams are dropped.
    w.stdout.resume();
    w.stderr.resume();
    w.unref();
    w.on('message', (reply: Reply) => this.onReply(w, reply));
    w.on('error', () => this.replace(w));
    w.on('exit', () => this.replace(w));
    this.worker = w;
    this.ready = false;
  }

  private onReply(w: Worker, reply: Reply): void {
    if (reply.ready) {
      if (this.worker !== w) return;
      this.ready = true;
      for (const job of this.jobs.values()) if (!job.timer) this.dispatch(w, job);
      return;
    }
    const job = reply.id === undefined ? undefined : this.jobs.get(reply.id);
    if (!job) return;
    if (reply.ok) this.finish(job, reply.each ?? reply.match ?? null);
    else
      this.finish(job, new RegexJobError(`the regular expression engine refused the pattern: ${reply.error ?? 'unknown error'}`, 'engine'));
  }

  private finish(job: Job, outcome: RegexMatch | null | boolean[] | Error): void {
    clearTimeout(job.timer);
    this.jobs.delete(job.id);
    if (outcome instanceof Error) job.reject(outcome);
    else job.resolve(outcome);
  }

  /** A job ran out of budget: reject it and replace the (possibly busy) worker. */
  private overrun(id: number): void {
    const job = this.jobs.get(id);
    if (!job) return;
    this.finish(job, new RegexJobError(`the regular expression did not finish within ${job.budgetMs} ms`, 'timeout'));
    if (this.worker) this.replace(this.worker);
  }

  /**
   * Drops worker `w` (if current). The jobs still pending go to a fresh worker, their budgets
   * restarted once it is ready; a worker that died before it was ready fails them instead.
   */
  private replace(w: Worker): void {
    if (this.worker !== w) return;
    const wasReady = this.ready;
    this.worker = null;
    this.ready = false;
    void w.terminate();
    for (const job of this.jobs.values()) {
      clearTimeout(job.timer);
      job.timer = undefined;
      if (!wasReady) this.finish(job, new RegexJobError('the regular expression worker could not start', 'engine'));
    }
    if (this.jobs.size > 0) this.spawn();
  }
}
