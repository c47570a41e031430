import { Worker } from 'node:worker_threads';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { GatewayError } from '../../foundation/errors/gateway-error.js';
import type { RequestLogsTable as RequestLogRow } from './schema.js';

/**
 * What the thread does, by name: each is the repository function of that name (`repos/request-logs.ts`,
 * `repos/request-log-rollups.ts`), run on the thread's connection, which the function itself hands here
 * when the store has a thread.
 */
export interface RequestLogThreadOps {
  insertRequestLogs(rows: RequestLogRow[]): Promise<void>;
  deleteRequestLogsBefore(before: number, limit: number): Promise<number>;
  deleteRollupBucketsBefore(organisationId: string, bucketMs: number, before: number): Promise<number>;
  backfillRollups(limit: number): Promise<number>;
}

/** The worker thread's script, compiled next to this module (absent when the gateway runs from its TypeScript sources). */
const THREAD_SCRIPT = new URL('./request-log-thread.js', import.meta.url);

/** How long `close` waits for the thread to finish its work and close its connection before stopping it. */
const CLOSE_WAIT_MS = 5000;

interface Running {
  worker: Worker;
  waiting: Map<number, { resolve(value: unknown): void; reject(err: Error): void }>;
  exited: Promise<void>;
}

/**
 * Runs the request log's writes to the SQLite file in a worker thread with its own connection
 * (request-log-thread.ts): each batch (its inserts, its rollups and the WAL checkpoints its commits set
 * off: ~5–15 ms for 500 rows), and the retention job's and the rollup backfill's statements (~80 ms per
 * 5,000 rows deleted), so that none of them holds the event loop. The main thread only hands the
 * arguments over (a structured clone). A call settles when the thread has committed its work, or rejects
 * with its error (a refused row: nothing of the batch was written). A thread that stops (it failed to open
 * the file, it crashed) fails its waiting calls with `store_unavailable`, so the request log keeps its rows
 * and retries; the next call starts a new thread. The thread runs one call at a time, in order.
 */
export class RequestLogThread {
  private running?: Running;
  private next = 0;

  constructor(
    private readonly path: string,
    private readonly script: URL = THREAD_SCRIPT,
  ) {}

  /** The thread for a SQLite file, or undefined where there is none to use: an in-memory database, or the compiled script missing (a run from the sources). */
  static forFile(path: string): RequestLogThread | undefined {
    if (path === ':memory:' || !existsSync(fileURLToPath(THREAD_SCRIPT))) return undefined;
    return new RequestLogThread(path);
  }

  /** Whether the thread is running (it starts with the first call). */
  get started(): boolean {
    return this.running !== undefined;
  }

  /** Runs `op` in the thread; settles with its result once its work is committed. */
  run<K extends keyof RequestLogThreadOps>(op: K, ...args: Parameters<RequestLogThreadOps[K]>): ReturnType<RequestLogThreadOps[K]> {
    const running = this.running ?? this.start();
    const id = ++this.next;
    return new Promise((resolve, reject) => {
      running.waiting.set(id, { resolve, reject });
      running.worker.postMessage({ id, op, args });
    }) as ReturnType<RequestLogThreadOps[K]>;
  }

  /** Lets the thread finish what it was given, close its connection and end (stopped after `CLOSE_WAIT_MS`). */
  async close(): Promise<void> {
    const running = this.running;
    if (!running) return;
    running.worker.postMessage({ close: true });
    const timer = setTimeout(() => void running.worker.terminate(), CLOSE_WAIT_MS);
    await running.exited;
    clearTimeout(timer);
  }

  private start(): Running {
    // V8's default young generation: a 4 MiB one saved ~8 MB of memory but cost the thread ~3 µs of garbage
    // collection per row (a batch's rows, alive for its transaction, were copied out of a full young generation).
    const worker = new Worker(this.script, { workerData: { path: this.path } });
    // The gateway's shutdown closes it; it must not keep a process alive that has nothing else to do.
    worker.unref();
    let exited!: () => void;
    const running: Running = { worker, waiting: new Map(), exited: new Promise((r) => (exited = r)) };
    worker.on('message', (m: { id: number; value?: unknown; error?: { message: string; code?: string } }) => {
      const waiter = running.waiting.get(m.id);
      if (!waiter) return;
      running.waiting.delete(m.id);
      if (m.error) waiter.reject(Object.assign(new Error(m.error.message), m.error.code ? { code: m.error.code } : {}));
      else waiter.resolve(m.value);
    });
    worker.on('error', (err) => this.lost(running, err));
    worker.on('exit', (code) => {
      this.lost(running, new Error(`the request log's thread ended (exit code ${code})`));
      exited();
    });
    this.running = running;
    return running;
  }

  /** Fails the calls a stopped thread was given: the request log keeps their rows and retries them. */
  private lost(running: Running, cause: Error): void {
    if (this.running === running) this.running = undefined;
    for (const waiter of running.waiting.values())
      waiter.reject(new GatewayError('store_unavailable', `request log not written: ${cause.message}`, { cause }));
    running.waiting.clear();
  }
}
