import type { Kysely } from 'kysely';

/**
 * The runtime change outbox: one row per (version, section, workspace) a control-plane write changed,
 * written in the write's transaction with the version bump (`recordRuntimeChange`). Replicas read the
 * rows after their snapshot's version to reload only those sections and workspaces. `workspace_id`
 * null means the whole section; section `*` means everything. Old rows are pruned in small batches.
 * Also indexes gateway keys by workspace, which a per-workspace reload of the keys section reads.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('runtime_changes')
    .addColumn('version', 'bigint', (c) => c.notNull())
    .addColumn('seq', 'integer', (c) => c.notNull())
    .addColumn('section', 'varchar(64)', (c) => c.notNull())
    .addColumn('workspace_id', 'varchar(64)')
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addPrimaryKeyConstraint('runtime_changes_pk', ['version', 'seq'])
    .execute();
  await db.schema.createIndex('api_keys_workspace').on('api_keys').column('workspace_id').execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropIndex('api_keys_workspace').ifExists().execute();
  await db.schema.dropTable('runtime_changes').ifExists().execute();
}
