import type { Kysely } from 'kysely';

/**
 * Request-log rows keep what their cost was computed from: `unit_prices` (JSON: USD per million
 * tokens by unit, the integration's multiplier, the price source; null when no price applied) and the
 * token details the providers report — cache reads (`cached_tokens`), cache writes and reasoning
 * tokens (parts of `prompt_tokens` and `completion_tokens`). Rows written before stay at null / 0.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('request_logs').addColumn('unit_prices', 'text').execute();
  await db.schema
    .alterTable('request_logs')
    .addColumn('cached_tokens', 'integer', (c) => c.notNull().defaultTo(0))
    .execute();
  await db.schema
    .alterTable('request_logs')
    .addColumn('cache_write_tokens', 'integer', (c) => c.notNull().defaultTo(0))
    .execute();
  await db.schema
    .alterTable('request_logs')
    .addColumn('reasoning_tokens', 'integer', (c) => c.notNull().defaultTo(0))
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  for (const column of ['reasoning_tokens', 'cache_write_tokens', 'cached_tokens', 'unit_prices']) {
    await db.schema.alterTable('request_logs').dropColumn(column).execute();
  }
}
