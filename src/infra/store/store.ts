import { Kysely, Migrator, sql, type MigrationResult } from 'kysely';
import { chmodSync, closeSync, existsSync, mkdirSync, openSync } from 'node:fs';
import { dirname } from 'node:path';
import type { Database } from './schema.js';
import { migrationProvider } from './migrations/index.js';
import { GuardedPostgresDialect } from './guarded-postgres-dialect.js';
import { ImmediateSqliteDialect } from './immediate-sqlite-dialect.js';
import { configureSqliteConnection } from './sqlite-connection.js';
import { RequestLogThread } from './request-log-worker.js';
import { PRIVATE_DIR_MODE, PRIVATE_FILE_MODE } from '../../foundation/lib/private-files.js';
import type { RuntimeChange } from '../../kernel/runtime-change.js';
import { withMigrationLock } from './migration-lock.js';
import { assertSchemaRunnable, migrationStatus } from './schema-compat.js';

/** How to open the store: SQLite file (embedded default) or PostgreSQL URL. */
export type StoreOptions =
  | {
      kind: 'sqlite';
      path: string;
      /** Who writes the request log: by default a thread for a file when the compiled thread script is there (`RequestLogThread.forFile`), `false` for the main connection. */
      requestLogThread?: RequestLogThread | false;
    }
  | {
      kind: 'postgres';
      url: string;
      /** Schema to use (tests isolate themselves in one); default `public`. */
      schema?: string;
      poolSize?: number;
      /** Called when a pooled connection fails outside a query (backend terminated, server gone); the pool replaces it. */
      onConnectionError?: (err: Error) => void;
      /** Milliseconds to wait for a connection before a query fails with `store_unavailable` (default 5000). */
      connectTimeoutMs?: number;
    };

/**
 * The store: a Kysely handle over SQLite or PostgreSQL with migrations applied. Repositories in
 * `infra/store/repos/` take it; nothing else issues SQL.
 */
export interface Store {
  readonly db: Kysely<Database>;
  readonly dialect: 'sqlite' | 'postgres';
  /** The raw SQLite handle (embedded default only), for prepared-statement bulk writes on hot paths. */
  readonly sqlite?: SqliteHandle;
  /** The thread that writes the request log to a SQLite file (see `RequestLogThread`); none on PostgreSQL, in memory or from the sources. */
  readonly requestLogThread?: RequestLogThread;
  close(): Promise<void>;
}

/** What {@link openStore} does besides opening: hooks around the migrations. */
export interface OpenStoreHooks {
  /** Runs after the migrations, still under the migration lock (the first start's bootstrap: one replica at a time). */
  afterMigrations?: (store: Store) => Promise<void>;
  /** Called at most every 5 s while another replica holds the migration lock (PostgreSQL). */
  onLockWait?: (waitedMs: number) => void;
  /** Called with the names of the migrations this open applied (none: not called). */
  onApplied?: (names: string[]) => void;
}

/**
 * Opens the store and runs pending migrations, then `hooks.afterMigrations`; on PostgreSQL both under the
 * schema's migration lock (`withMigrationLock`), so replicas started together never race. A schema this
 * build cannot run (`assertSchemaRunnable`) throws a `StartupError`; a schema holding a later release's
 * expand steps besides all of this build's is run as it is.
 */
export async function openStore(opts: StoreOptions, hooks: OpenStoreHooks = {}): Promise<Store> {
  const sqlite = opts.kind === 'sqlite' ? await openSqlite(opts.path) : undefined;
  const db = sqlite ? sqlite.db : await openPostgres(opts as PostgresOptions);
  const requestLogThread =
    opts.kind === 'sqlite'
      ? opts.requestLogThread === undefined
        ? RequestLogThread.forFile(opts.path)
        : opts.requestLogThread || undefined
      : undefined;
  const store: Store = {
    db,
    dialect: opts.kind,
    sqlite: sqlite?.raw,
    requestLogThread,
    async close() {
      await requestLogThread?.close();
      await db.destroy();
    },
  };
  const migrate = async () => {
    const status = await migrationStatus(db);
    await assertSchemaRunnable(db, status);
    if (status.pending.length > 0) {
      const applied = await runMigrations(db, opts);
      if (applied.length > 0) hooks.onApplied?.(applied);
    }
    await hooks.afterMigrations?.(store);
  };
  try {
    if (opts.kind === 'postgres') await withMigrationLock({ url: opts.url, schema: opts.schema, onWait: hooks.onLockWait }, migrate);
    else await migrate();
  } catch (err) {
    await store.close();
    throw err;
  }
  return store;
}

async function runMigrations(db: Kysely<Database>, opts: StoreOptions): Promise<string[]> {
  const migrator = new Migrator({
    db,
    provider: migrationProvider,
    // Capabilities add migrations independently; apply any not yet run, whatever its position.
    allowUnorderedMigrations: true,
    ...(opts.kind === 'postgres' && opts.schema ? { migrationTableSchema: opts.schema } : {}),
  });
  let { error, results } = await migrator.migrateToLatest();
  // Kysely introspects tables of every schema; a schema, table or column dropped meanwhile by someone else
  // (another gateway's tests, an operator) makes that one query fail. Nothing was applied then: try again.
  for (let attempt = 0; error && attempt < 3 && isOtherSchemaChange(error, results, opts); attempt++) {
    await new Promise((r) => setTimeout(r, 50 * (attempt + 1)));
    ({ error, results } = await migrator.migrateToLatest());
  }
  if (error) {
    const failed = results?.find((r) => r.status === 'Error');
    throw new Error(`Store migration ${failed?.migrationName ?? ''} failed: ${String((error as Error).message ?? error)}`);
  }
  return (results ?? []).filter((r) => r.status === 'Success').map((r) => r.migrationName);
}

/**
 * Whether a failed migration run failed in Kysely's introspection of the catalog because another schema changed
 * under it (nothing of ours was applied; a retry reads the catalog again): a schema or a table of another schema
 * gone, or a column dropped meanwhile (`pg_get_serial_sequence` on a column that no longer exists; the message
 * names no schema, so it counts only when no migration of ours failed: the error came before any ran).
 */
export function isOtherSchemaChange(error: unknown, results: readonly MigrationResult[] | undefined, opts: StoreOptions): boolean {
  if (opts.kind !== 'postgres') return false;
  const message = String((error as Error)?.message ?? '');
  if (/column "[^"]+" of relation "[^"]+" does not exist/.test(message)) return !results?.some((r) => r.status === 'Error');
  const m = message.match(/schema "([^"]+)" does not exist/) ?? message.match(/relation "([^".]+)\.[^"]+" does not exist/);
  return m !== null && m[1] !== (opts.schema ?? 'public');
}

/** The better-sqlite3 database handle type. */
export type SqliteHandle = import('better-sqlite3').Database;

async function openSqlite(path: string): Promise<{ db: Kysely<Database>; raw: SqliteHandle }> {
  const { default: SQLite } = await import('better-sqlite3');
  if (path !== ':memory:') makePrivate(path);
  // No busy timeout: SQLite would wait for the request log's thread by sleeping on the event loop; the dialect waits between tries.
  const database = configureSqliteConnection(new SQLite(path), 0);
  return { db: new Kysely<Database>({ dialect: new ImmediateSqliteDialect({ database }) }), raw: database };
}

/**
 * Creates the database file owner-only (0600) in an owner-only directory (0700) before SQLite opens it,
 * and tightens an existing one: SQLite gives the -wal and -shm files it creates the database's mode.
 */
function makePrivate(path: string): void {
  mkdirSync(dirname(path), { recursive: true, mode: PRIVATE_DIR_MODE });
  closeSync(openSync(path, 'a', PRIVATE_FILE_MODE));
  for (const file of [path, `${path}-wal`, `${path}-shm`]) if (existsSync(file)) chmodSync(file, PRIVATE_FILE_MODE);
}

type PostgresOptions = Extract<StoreOptions, { kind: 'postgres' }>;

async function openPostgres(opts: PostgresOptions): Promise<Kysely<Database>> {
  const pg = await import('pg');
  // bigint (int8) columns hold millisecond times and counters: read them as numbers.
  pg.default.types.setTypeParser(20, (v: string) => Number(v));
  const schema = opts.schema;
  if (schema) {
    if (!/^[a-z_][a-z0-9_]*$/.test(schema)) throw new Error(`Invalid schema name ${schema}`);
    const admin = new pg.default.Client({ connectionString: opts.url });
    await admin.connect();
    try {
      await admin.query(`create schema if not exists ${schema}`);
    } finally {
      await admin.end();
    }
  }
  const pool = new pg.default.Pool({
    connectionString: opts.url,
    max: opts.poolSize ?? 10,
    // Seen in pg_stat_activity (an application_name in DATABASE_URL wins).
    application_name: schema ? `ai-gateway/${schema}` : 'ai-gateway',
    connectionTimeoutMillis: opts.connectTimeoutMs ?? 5000,
    keepAlive: true,
    ...(schema ? { options: `-c search_path=${schema}` } : {}),
  });
  // A connection that dies while idle in the pool (a database restart, failover, an idle-closing proxy)
  // is an 'error' event of the pool, and one that dies while checked out, of the client: without a
  // listener either is an uncaught exception that ends the process. The pool drops the dead client
  // and connects a new one on the next query; a query on it fails with `store_unavailable`.
  const report = (err: Error) => opts.onConnectionError?.(err);
  pool.on('error', report);
  pool.on('connect', (client) => client.on('error', () => {}));
  return new Kysely<Database>({ dialect: new GuardedPostgresDialect({ pool }) });
}

/** Drops a PostgreSQL schema (test clean-up). */
export async function dropPostgresSchema(url: string, schema: string): Promise<void> {
  const pg = await import('pg');
  const client = new pg.default.Client({ connectionString: url });
  await client.connect();
  try {
    await client.query(`drop schema if exists ${schema} cascade`);
  } finally {
    await client.end();
  }
}

/** True when an error is a unique-constraint violation in either database. */
export function isUniqueViolation(err: unknown): boolean {
  const e = err as { code?: string; message?: string };
  return (
    e?.code === '23505' ||
    e?.code === 'SQLITE_CONSTRAINT_UNIQUE' ||
    e?.code === 'SQLITE_CONSTRAINT_PRIMARYKEY' ||
    /UNIQUE constraint failed/.test(e?.message ?? '')
  );
}

/** Bumps the runtime version so every replica reloads its whole snapshot. */
export async function bumpRuntimeVersion(store: Store): Promise<void> {
  await recordRuntimeChange(store.db, []);
}

/** Outbox section name of a change that reloads every section (a write recorded without changes). */
export const EVERY_SECTION = '*';
/** Outbox rows are kept for at least this many versions and this long, then pruned. */
export const RUNTIME_CHANGES_KEEP = { versions: 1000, ms: 10 * 60_000 };
/** At most this many versions' rows are pruned per recorded write (a bounded batch). */
const PRUNE_VERSIONS_PER_WRITE = 100;

/**
 * Records, inside the caller's transaction (or on the bare handle), that a control-plane write changed
 * these runtime sections: bumps the runtime version and writes one outbox row per distinct change
 * (`runtime_changes`), so the version and what it changed commit with the write, never without it.
 * An empty list records a change of every section. Prunes outbox rows older than `RUNTIME_CHANGES_KEEP`,
 * at most `PRUNE_VERSIONS_PER_WRITE` versions at a time. On PostgreSQL the version row stays locked
 * until the commit, which orders the writers' versions: call it last in the transaction.
 */
export async function recordRuntimeChange(db: Kysely<Database>, changes: readonly RuntimeChange[]): Promise<void> {
  // On a bare handle, the version and its outbox rows still commit together (a reader between the two would see a gap).
  if (!db.isTransaction) return db.transaction().execute((trx) => recordRuntimeChange(trx, changes));
  const bumped = await sql<{
    version: number | string;
  }>`update runtime_version set version = version + 1 where id = 1 returning version`.execute(db);
  const version = Number(bumped.rows[0]?.version);
  const now = Date.now();
  const rows = distinctChanges(changes).map((c, seq) => ({
    version,
    seq,
    section: c.section,
    workspace_id: c.workspaceId ?? null,
    created_at: now,
  }));
  await db.insertInto('runtime_changes').values(rows).execute();
  const oldest = await db
    .selectFrom('runtime_changes')
    .select((eb) => eb.fn.min('version').as('v'))
    .executeTakeFirst();
  const cutoff = Math.min(version - RUNTIME_CHANGES_KEEP.versions, Number(oldest?.v ?? version) + PRUNE_VERSIONS_PER_WRITE);
  await db
    .deleteFrom('runtime_changes')
    .where('version', '<=', cutoff)
    .where('created_at', '<', now - RUNTIME_CHANGES_KEEP.ms)
    .execute();
}

function distinctChanges(changes: readonly RuntimeChange[]): Array<{ section: string; workspaceId?: string | null }> {
  if (changes.length === 0) return [{ section: EVERY_SECTION }];
  const seen = new Set<string>();
  return changes.filter((c) => {
    const key = `${c.section}\u0000${c.workspaceId ?? ''}`;
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}

/** One outbox row: a section (or `EVERY_SECTION`) a version changed, limited to a workspace unless null. */
export interface RecordedRuntimeChange {
  version: number;
  section: string;
  workspaceId: string | null;
}

/** The outbox rows of versions `after` (exclusive) to `upTo` (inclusive), oldest first. */
export async function readRuntimeChanges(store: Store, after: number, upTo: number): Promise<RecordedRuntimeChange[]> {
  const rows = await store.db
    .selectFrom('runtime_changes')
    .select(['version', 'section', 'workspace_id'])
    .where('version', '>', after)
    .where('version', '<=', upTo)
    .orderBy('version')
    .orderBy('seq')
    .execute();
  return rows.map((r) => ({ version: Number(r.version), section: r.section, workspaceId: r.workspace_id }));
}

/** Which rows of a runtime source to read: a page after `afterId` (ordered by id), optionally of some workspaces only. */
export interface RuntimePage {
  afterId?: string;
  limit: number;
  workspaceIds?: readonly string[];
}

/** Reads the runtime version. */
export async function readRuntimeVersion(store: Store): Promise<number> {
  const row = await store.db.selectFrom('runtime_version').select('version').where('id', '=', 1).executeTakeFirst();
  return Number(row?.version ?? 0);
}
