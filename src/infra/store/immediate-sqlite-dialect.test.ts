import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import SQLite from 'better-sqlite3';
import { Kysely } from 'kysely';
import { openStore, type Store } from './store.js';
import { ImmediateSqliteDialect } from './immediate-sqlite-dialect.js';
import { configureSqliteConnection } from './sqlite-connection.js';
import type { Database } from './schema.js';

describe("the main SQLite connection's transactions begin IMMEDIATE", () => {
  let dir: string;
  let path: string;
  let store: Store;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'gw-immediate-'));
    path = join(dir, 'gateway.db');
    store = await openStore({ kind: 'sqlite', path, requestLogThread: false });
  });
  afterAll(async () => {
    await store.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it("holds the write lock from its start, so a write after a read is not refused for another connection's commit", async () => {
    // The request log's thread is such another connection. It waits for the lock (busy timeout); this one does not wait.
    const other = new SQLite(path);
    other.pragma('busy_timeout = 0');
    try {
      await store.db.transaction().execute(async (trx) => {
        await trx.selectFrom('runtime_version').select('version').execute();
        // A deferred transaction would let this commit, then fail its own write below with SQLITE_BUSY_SNAPSHOT.
        expect(() => other.prepare('update runtime_version set version = version + 100').run()).toThrow(
          expect.objectContaining({ code: 'SQLITE_BUSY' }),
        );
        await trx
          .updateTable('runtime_version')
          .set((eb) => ({ version: eb('version', '+', 1) }))
          .execute();
      });
      const after = other.prepare('update runtime_version set version = version + 100').run();
      expect(after.changes).toBe(1);
    } finally {
      other.close();
    }
    const row = await store.db.selectFrom('runtime_version').select('version').executeTakeFirstOrThrow();
    expect(Number(row.version) % 100).toBe(1);
  });

  it('waits for a file locked by another connection between tries, with the event loop free, then writes', async () => {
    const other = new SQLite(path);
    try {
      other.prepare('begin immediate').run();
      other.prepare('update runtime_version set version = version + 1000').run();
      let turns = 0;
      const ticker = setInterval(() => turns++, 1);
      // The other connection commits from a timer: a wait that slept in this thread (SQLite's busy timeout) would never see it.
      setTimeout(() => other.prepare('commit').run(), 60);
      const started = performance.now();
      await store.db
        .updateTable('runtime_version')
        .set((eb) => ({ version: eb('version', '+', 1) }))
        .execute();
      await store.db.transaction().execute(async (trx) => {
        await trx
          .updateTable('runtime_version')
          .set((eb) => ({ version: eb('version', '+', 1) }))
          .execute();
      });
      clearInterval(ticker);
      const waited = performance.now() - started;
      expect(waited).toBeGreaterThanOrEqual(50);
      // Not SQLite's busy timeout (5 s of sleep) run out first.
      expect(waited).toBeLessThan(1000);
      expect(turns).toBeGreaterThan(10);
    } finally {
      if (other.inTransaction) other.prepare('rollback').run();
      other.close();
    }
    const row = await store.db.selectFrom('runtime_version').select('version').executeTakeFirstOrThrow();
    expect(Math.floor(Number(row.version) / 1000) % 10).toBe(1);
  });

  it("leaves the waiting to SQLite on a connection with a busy timeout (the request log's thread): no second wait on top", async () => {
    const other = new SQLite(path);
    const threadLike = configureSqliteConnection(new SQLite(path), 100);
    const db = new Kysely<Database>({ dialect: new ImmediateSqliteDialect({ database: threadLike }) });
    try {
      other.prepare('begin immediate').run();
      const started = performance.now();
      const error = await db
        .updateTable('runtime_version')
        .set((eb) => ({ version: eb('version', '+', 1) }))
        .execute()
        .then(
          () => undefined,
          (e: unknown) => e,
        );
      const waited = performance.now() - started;
      expect((error as { code?: string }).code).toBe('SQLITE_BUSY');
      // SQLite's 100 ms, not the main connection's 5 s of tries after it.
      expect(waited).toBeGreaterThanOrEqual(90);
      expect(waited).toBeLessThan(1000);
    } finally {
      other.prepare('rollback').run();
      other.close();
      await db.destroy();
    }
  });
});
