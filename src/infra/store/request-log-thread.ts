/**
 * The worker thread that runs the request log's writes to the SQLite file (started by
 * `RequestLogThread`, request-log-worker.ts). It holds a connection of its own, and runs each call with
 * the repository function of its name on a store of that connection (which has no thread: the function
 * runs here). Calls run one at a time, in order: a batch's transaction never opens inside another's.
 *
 * Messages in: `{ id, op, args }` or `{ close: true }`. Messages out: `{ id, value }` once the call's work
 * is committed, or `{ id, error: { message, code } }` when it was not.
 */
import { parentPort, workerData } from 'node:worker_threads';
import SQLite from 'better-sqlite3';
import { Kysely } from 'kysely';
import { configureSqliteConnection } from './sqlite-connection.js';
import { ImmediateSqliteDialect, SQLITE_BUSY_WAIT_MS } from './immediate-sqlite-dialect.js';
import { deleteRequestLogsBefore, insertRequestLogs } from './repos/request-logs.js';
import { backfillRollups, deleteRollupBucketsBefore } from './repos/request-log-rollups.js';
import type { Database } from './schema.js';
import type { Store } from './store.js';
import type { RequestLogThreadOps } from './request-log-worker.js';

if (!parentPort) throw new Error('request-log-thread.js runs as a worker thread (see request-log-worker.ts)');
const port = parentPort;
const database = configureSqliteConnection(new SQLite((workerData as { path: string }).path), SQLITE_BUSY_WAIT_MS);
const db = new Kysely<Database>({ dialect: new ImmediateSqliteDialect({ database }) });
const store: Store = { db, dialect: 'sqlite', sqlite: database, close: () => db.destroy() };

const ops: RequestLogThreadOps = {
  insertRequestLogs: (rows) => insertRequestLogs(store, rows),
  deleteRequestLogsBefore: (before, limit) => deleteRequestLogsBefore(store, before, limit),
  deleteRollupBucketsBefore: (organisationId, bucketMs, before) => deleteRollupBucketsBefore(store, organisationId, bucketMs, before),
  backfillRollups: (limit) => backfillRollups(store, limit),
};

type Call = {
  [K in keyof RequestLogThreadOps]: { id: number; op: K; args: Parameters<RequestLogThreadOps[K]> };
}[keyof RequestLogThreadOps];

let queue: Promise<void> = Promise.resolve();

port.on('message', (message: Call | { close: true }) => {
  if ('close' in message) {
    queue = queue.then(async () => {
      await store.close();
      port.close();
    });
    return;
  }
  queue = queue.then(async () => {
    try {
      const run = ops[message.op] as (...args: unknown[]) => Promise<unknown>;
      port.postMessage({ id: message.id, value: await run(...message.args) });
    } catch (err) {
      const e = err as { message?: unknown; code?: unknown };
      port.postMessage({
        id: message.id,
        error: { message: String(e?.message ?? err), code: typeof e?.code === 'string' ? e.code : undefined },
      });
    }
  });
});
