import type { Kysely } from 'kysely';

/**
 * `usage_limit_policies.owner`: the API key (`api_key:<id>`) or workspace (`workspace:<id>`) whose
 * inline `usage_limits` made the policy (null for policies made through `/v1/policies/usage-limits`).
 * The owner's `usage_limits` are read from these rows, so the two never drift apart.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('usage_limit_policies').addColumn('owner', 'varchar(100)').execute();
  await db.schema.createIndex('usage_limit_policies_owner').on('usage_limit_policies').columns(['owner', 'status']).execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropIndex('usage_limit_policies_owner').execute();
  await db.schema.alterTable('usage_limit_policies').dropColumn('owner').execute();
}
