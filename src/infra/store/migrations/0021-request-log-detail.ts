import type { Kysely } from 'kysely';

/**
 * The request log's detail (`GET /v1/logs/{id}`): `attempts` (every attempt of the route as JSON),
 * `ttfb_ms` (time to the answer's first byte) and, when the workspace's `log_bodies` is on,
 * `request_body` and `response_body` (secrets redacted). Rows written before stay null in each. The
 * `(organisation_id, created_at)` index serves organisation-wide reads (analytics, export) and the
 * retention job's deletes.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('request_logs').addColumn('attempts', 'text').execute();
  await db.schema.alterTable('request_logs').addColumn('ttfb_ms', 'integer').execute();
  await db.schema.alterTable('request_logs').addColumn('request_body', 'text').execute();
  await db.schema.alterTable('request_logs').addColumn('response_body', 'text').execute();
  await db.schema.createIndex('request_logs_org_created').on('request_logs').columns(['organisation_id', 'created_at']).execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropIndex('request_logs_org_created').execute();
  for (const column of ['response_body', 'request_body', 'ttfb_ms', 'attempts'])
    await db.schema.alterTable('request_logs').dropColumn(column).execute();
}
