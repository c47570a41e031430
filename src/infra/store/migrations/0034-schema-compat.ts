import { sql, type Kysely } from 'kysely';

/**
 * `schema_compat`: the oldest build level that may run on this schema (docs/deployment.md, "Upgrades").
 * Migrations only expand (add tables, nullable or defaulted columns, indexes); a later release's
 * contract step, which drops what an older release still reads, raises `min_level` in the same
 * transaction, so a build whose `SCHEMA_LEVEL` is lower stops at start (exit 4) instead of failing later.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('schema_compat')
    .addColumn('id', 'integer', (c) => c.primaryKey())
    .addColumn('min_level', 'integer', (c) => c.notNull())
    .execute();
  await sql`insert into schema_compat (id, min_level) values (1, 1)`.execute(db);
}

/** Drops the table. */
export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('schema_compat').execute();
}
