import type { Kysely } from 'kysely';

/**
 * Dispatch records of gateway-managed batch lines: `dispatches` counts the times a line was handed to
 * the provider (written, durably, before each send) and `dispatched_at` is the last of them (ms). A
 * worker that finds a line dispatched but without a result (its previous worker died) sends it at most
 * once more, and fails it once `dispatches` reached the bound, so a line never reaches the provider a
 * third time however often the gateway crashes.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .alterTable('batch_lines')
    .addColumn('dispatches', 'integer', (c) => c.notNull().defaultTo(0))
    .execute();
  await db.schema.alterTable('batch_lines').addColumn('dispatched_at', 'bigint').execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('batch_lines').dropColumn('dispatched_at').execute();
  await db.schema.alterTable('batch_lines').dropColumn('dispatches').execute();
}
