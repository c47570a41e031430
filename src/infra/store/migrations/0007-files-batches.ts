import type { Kysely } from 'kysely';

/**
 * Files, batches and their lines (issue 10). `gateway_files` holds gateway-stored files (content in
 * the file storage) and mapping rows for files a provider holds; `batches` holds gateway-managed
 * batches (the batch object as JSON) and mapping rows for provider-native ones; `batch_lines` is the
 * durable per-line work queue of gateway-managed batches (claimed with a lease, SKIP LOCKED on PostgreSQL).
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('gateway_files')
    .addColumn('id', 'varchar(64)', (c) => c.primaryKey())
    .addColumn('workspace_id', 'varchar(64)', (c) => c.notNull())
    .addColumn('backend', 'varchar(16)', (c) => c.notNull())
    .addColumn('provider', 'varchar(64)')
    .addColumn('virtual_key', 'varchar(128)')
    .addColumn('filename', 'text', (c) => c.notNull())
    .addColumn('purpose', 'varchar(32)', (c) => c.notNull())
    .addColumn('bytes', 'bigint', (c) => c.notNull())
    .addColumn('status', 'varchar(16)', (c) => c.notNull())
    .addColumn('storage_key', 'text')
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('gateway_files_ws_created').on('gateway_files').columns(['workspace_id', 'created_at']).execute();

  await db.schema
    .createTable('batches')
    .addColumn('id', 'varchar(64)', (c) => c.primaryKey())
    .addColumn('workspace_id', 'varchar(64)', (c) => c.notNull())
    .addColumn('mode', 'varchar(16)', (c) => c.notNull())
    .addColumn('provider', 'varchar(64)')
    .addColumn('virtual_key', 'varchar(128)')
    .addColumn('status', 'varchar(16)', (c) => c.notNull())
    .addColumn('batch', 'text', (c) => c.notNull())
    .addColumn('route', 'text', (c) => c.notNull().defaultTo('{}'))
    .addColumn('lease_owner', 'varchar(64)')
    .addColumn('lease_until', 'bigint')
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('updated_at', 'bigint', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('batches_ws_created').on('batches').columns(['workspace_id', 'created_at']).execute();
  await db.schema.createIndex('batches_status').on('batches').columns(['status']).execute();

  await db.schema
    .createTable('batch_lines')
    .addColumn('batch_id', 'varchar(64)', (c) => c.notNull())
    .addColumn('line_no', 'integer', (c) => c.notNull())
    .addColumn('custom_id', 'text', (c) => c.notNull())
    .addColumn('body', 'text', (c) => c.notNull())
    .addColumn('state', 'varchar(16)', (c) => c.notNull())
    .addColumn('ok', 'integer')
    .addColumn('result', 'text')
    .addColumn('owner', 'varchar(64)')
    .addColumn('claimed_at', 'bigint')
    .addColumn('attempts', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('finished_at', 'bigint')
    .addPrimaryKeyConstraint('batch_lines_pk', ['batch_id', 'line_no'])
    .execute();
  await db.schema.createIndex('batch_lines_batch_state').on('batch_lines').columns(['batch_id', 'state']).execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('batch_lines').ifExists().execute();
  await db.schema.dropTable('batches').ifExists().execute();
  await db.schema.dropTable('gateway_files').ifExists().execute();
}
