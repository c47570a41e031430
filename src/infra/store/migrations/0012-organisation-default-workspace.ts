import { sql, type Kysely } from 'kysely';

/**
 * Each organisation names its default workspace: the one its organisation keys act in on the data plane
 * and for writes that name no `workspace_id`. Existing organisations get their workspace with slug
 * `default`, else their oldest workspace.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('organisations').addColumn('default_workspace_id', 'varchar(64)').execute();
  await sql`
    UPDATE organisations SET default_workspace_id = (
      SELECT w.id FROM workspaces w WHERE w.organisation_id = organisations.id
      ORDER BY CASE WHEN w.slug = 'default' THEN 0 ELSE 1 END, w.created_at, w.id LIMIT 1
    )`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('organisations').dropColumn('default_workspace_id').execute();
}
