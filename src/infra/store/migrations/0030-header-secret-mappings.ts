import type { Kysely } from 'kysely';

/**
 * Header secret mappings (docs/secrets.md, "Header secret_mappings"): `mcp_integrations.secret_mappings`
 * and `agent_servers.secret_mappings` hold, as a JSON array (`'[]'` when none), the headers filled from
 * secret references when the gateway calls the upstream. They name references, never values.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .alterTable('mcp_integrations')
    .addColumn('secret_mappings', 'text', (c) => c.notNull().defaultTo('[]'))
    .execute();
  await db.schema
    .alterTable('agent_servers')
    .addColumn('secret_mappings', 'text', (c) => c.notNull().defaultTo('[]'))
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('agent_servers').dropColumn('secret_mappings').execute();
  await db.schema.alterTable('mcp_integrations').dropColumn('secret_mappings').execute();
}
