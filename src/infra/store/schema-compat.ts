import { sql, type Kysely } from 'kysely';
import type { Database } from './schema.js';
import { migrationProvider } from './migrations/index.js';
import { StartupError } from '../../foundation/lib/startup-error.js';

/**
 * This build's schema level: it runs on any schema whose `schema_compat.min_level` is at most this. A
 * release that ships a contract step (dropping what older releases read) raises both.
 */
export const SCHEMA_LEVEL = 1;

/** Names of the migrations recorded as applied (empty on a new database). */
export async function appliedMigrations(db: Kysely<Database>): Promise<Set<string>> {
  try {
    const { rows } = await sql<{ name: string }>`select name from kysely_migration`.execute(db);
    return new Set(rows.map((r) => r.name));
  } catch (err) {
    if (/kysely_migration|no such table/.test(String((err as Error)?.message))) return new Set();
    throw err;
  }
}

/** Where a schema stands against this build's migrations. */
export interface MigrationStatus {
  /** This build's migrations not applied yet. */
  pending: string[];
  /** Applied migrations this build does not know: a later release's expand steps. */
  unknown: string[];
}

/** Compares the applied migrations with this build's. */
export async function migrationStatus(db: Kysely<Database>): Promise<MigrationStatus> {
  const applied = await appliedMigrations(db);
  const known = Object.keys(await migrationProvider.getMigrations());
  return { pending: known.filter((n) => !applied.has(n)), unknown: [...applied].filter((n) => !known.includes(n)) };
}

/**
 * Refuses (exit 4, operations.md §3) a schema this build cannot run: one a later release's contract step
 * raised above `SCHEMA_LEVEL`, or one that holds a later release's migrations but lacks some of this
 * build's (they cannot be applied out of their release's order).
 */
export async function assertSchemaRunnable(db: Kysely<Database>, status: MigrationStatus): Promise<void> {
  if (status.unknown.length > 0 && status.pending.length > 0) {
    throw new StartupError(
      `the database schema holds migrations of a later release (${status.unknown.join(', ')}) but lacks this build's ${status.pending.join(', ')}: run the later release`,
      4,
    );
  }
  if (status.pending.includes('0034-schema-compat')) return;
  const row = await sql<{ min_level: number | string }>`select min_level from schema_compat where id = 1`.execute(db);
  const min = Number(row.rows[0]?.min_level ?? 0);
  if (min > SCHEMA_LEVEL) {
    throw new StartupError(
      `the database schema needs build level ${min} or later (a later release's contract step ran); this build is level ${SCHEMA_LEVEL}: run the later release`,
      4,
    );
  }
}
