import { sql, type Kysely } from 'kysely';

/**
 * `api_keys.instance_operator` (0 or 1): the key of the instance's operator, the organisation-service
 * admin key the bootstrap made on first start (the only key that may create organisations). Set by the
 * bootstrap from now on; on an existing store it goes to the bootstrap's key: the first key the store
 * got, when it is an organisation-level service key of the `default` organisation (the bootstrap made
 * its key before any other could exist). No other key is marked.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .alterTable('api_keys')
    .addColumn('instance_operator', 'integer', (c) => c.notNull().defaultTo(0))
    .execute();
  const first = await sql<{ id: string; type: string; workspace_id: string | null; slug: string }>`
    select k.id, k.type, k.workspace_id, o.slug from api_keys k join organisations o on o.id = k.organisation_id
    order by k.created_at, k.id limit 1`.execute(db);
  const key = first.rows[0];
  if (key && key.type === 'organisation-service' && key.workspace_id === null && key.slug === 'default') {
    await sql`update api_keys set instance_operator = 1 where id = ${key.id}`.execute(db);
  }
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('api_keys').dropColumn('instance_operator').execute();
}
