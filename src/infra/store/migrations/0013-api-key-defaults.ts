import type { Kysely } from 'kysely';

/**
 * Gateway keys get `defaults` (JSON text, null when none): the config a request without
 * `x-gateway-config` is routed by, metadata merged under the request's, and whether a request may
 * override the config.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('api_keys').addColumn('defaults', 'text').execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('api_keys').dropColumn('defaults').execute();
}
