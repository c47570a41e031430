import { Worker } from 'node:worker_threads';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { GatewayError } from '../errors/gateway-error.js';
import type { RequestLogsTable as RequestLogRow } from './schema.js';

/** The worker thread's script, compiled next to this module (absent when the gateway runs from its TypeScript sources). */
const THREAD_SCRIPT = new URL('./request-log-thread.js', import.meta.url);

/** The thread's young generation (MiB). */
const YOUNG_GENERATION_MB = 4;

/** How long `close` waits for the thread to finish its batch and close its connection before stopping it. */
const CLOSE_WAIT_MS = 5000;

interface Running {
  worker: Worker;
  waiting: Map<number, { resolve(): void; reject(err: Error): void }>;
  exited: Promise<void>;
}

/**
 * Writes the request log's batches to the SQLite file from a worker thread with its own connection
 * (request-log-thread.ts), so that a batch (its inserts, its rollups and the WAL checkpoints its commits
 * set off: ~5–15 ms for 500 rows) does not hold the event loop. The main thread only hands the rows
 * over (a structured clone). `insert` settles when the thread has committed the batch, or rejects with
 * its error (a refused row: nothing of the batch was written). A thread that stops (it failed to open
 * the file, it crashed) fails its waiting batches with `store_unavailable`, so the request log keeps
 * them and retries; the next batch starts a new thread.
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

  /** Writes one batch in the thread; settles once it is committed. */
  insert(rows: RequestLogRow[]): Promise<void> {
    const running = this.running ?? this.start();
    const id = ++this.next;
    return new Promise<void>((resolve, reject) => {
      running.waiting.set(id, { resolve, reject });
      running.worker.postMessage({ id, rows });
    });
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
    // A small young generation: what the thread allocates (each batch's rows, cloned in) dies with its batch,
    // and V8's default (16 MiB) only adds to the process's memory (~8 MB measured).
    const worker = new Worker(this.script, { workerData: { path: this.path }, resourceLimits: { maxYoungGenerationSizeMb: YOUNG_GENERATION_MB } });
    // The gateway's shutdown closes it; it must not keep a process alive that has nothing else to do.
    worker.unref();
    let exited!: () => void;
    const running: Running = { worker, waiting: new Map(), exited: new Promise((r) => (exited = r)) };
    worker.on('message', (m: { id: number; error?: { message: string; code?: string } }) => {
      const waiter = running.waiting.get(m.id);
      if (!waiter) return;
      running.waiting.delete(m.id);
      if (m.error) waiter.reject(Object.assign(new Error(m.error.message), m.error.code ? { code: m.error.code } : {}));
      else waiter.resolve();
    });
    worker.on('error', (err) => this.lost(running, err));
    worker.on('exit', (code) => {
      this.lost(running, new Error(`the request log's thread ended (exit code ${code})`));
      exited();
    });
    this.running = running;
    return running;
  }

  /** Fails the batches a stopped thread was given: the rows stay with the request log, which retries them. */
  private lost(running: Running, cause: Error): void {
    if (this.running === running) this.running = undefined;
    for (const waiter of running.waiting.values()) waiter.reject(new GatewayError('store_unavailable', `request log not written: ${cause.message}`, { cause }));
    running.waiting.clear();
  }
}
