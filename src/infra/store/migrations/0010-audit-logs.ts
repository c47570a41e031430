import { sql, type Kysely } from 'kysely';

/**
 * The audit log (control-plane.md §4): one row per control-plane write, written in the write's
 * transaction. Also gives the bootstrap admin key (organisation-service `admin`, created without
 * scopes when keys without scopes meant `*`) its `*` explicitly: keys without scopes now get only their
 * type's data-plane and read defaults.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('audit_logs')
    .addColumn('id', 'varchar(64)', (c) => c.primaryKey())
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('organisation_id', 'varchar(64)', (c) => c.notNull())
    .addColumn('workspace_id', 'varchar(64)')
    .addColumn('actor_type', 'varchar(16)', (c) => c.notNull())
    .addColumn('actor_id', 'varchar(64)')
    .addColumn('action', 'varchar(128)', (c) => c.notNull())
    .addColumn('resource_type', 'varchar(64)', (c) => c.notNull())
    .addColumn('resource_id', 'varchar(64)')
    .addColumn('request_id', 'varchar(128)')
    .addColumn('client_ip', 'varchar(64)')
    .addColumn('details', 'text', (c) => c.notNull().defaultTo('{}'))
    .execute();
  await db.schema.createIndex('audit_logs_org_time').on('audit_logs').columns(['organisation_id', 'created_at']).execute();
  await sql`update api_keys set scopes = '["*"]' where id = (select id from api_keys where type = 'organisation-service' and name = 'admin' and scopes = '[]' order by created_at limit 1)`.execute(
    db,
  );
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('audit_logs').ifExists().execute();
}
