import type { Kysely } from 'kysely';
import type { Database } from '../schema.js';
import type { TenantScope } from '../../../kernel/tenant-scope.js';
import { inList } from './tenant.js';

/** The tables of limit policies: same tenancy, status and paging columns. */
export type PolicyTable = 'rate_limit_policies' | 'usage_limit_policies';

/** The scope's rows of a policy table (`selectFrom` narrowed to the tenant). */
function scoped<T extends PolicyTable>(db: Kysely<Database>, table: T, scope: TenantScope) {
  return db
    .selectFrom(table as PolicyTable)
    .where('organisation_id', '=', scope.organisationId)
    .where('workspace_id', 'in', inList(scope));
}

/** One row of the scope by id (any status), or undefined. */
export async function getPolicyRow<T extends PolicyTable>(
  db: Kysely<Database>,
  table: T,
  scope: TenantScope,
  id: string,
): Promise<Database[T] | undefined> {
  return (await scoped(db, table, scope).selectAll().where('id', '=', id).executeTakeFirst()) as Database[T] | undefined;
}

/**
 * A page of the scope's rows with `status` and the given column filters (undefined ones ignored), newest
 * first, with the total matching the filters.
 */
export async function listPolicyRows<T extends PolicyTable>(
  db: Kysely<Database>,
  table: T,
  scope: TenantScope,
  f: { status: string; limit: number; offset: number; columns: Partial<Record<'type' | 'unit', string>> },
): Promise<{ rows: Database[T][]; total: number }> {
  if (scope.workspaceIds.length === 0) return { rows: [], total: 0 };
  let base = scoped(db, table, scope).where('status', '=', f.status);
  for (const [column, value] of Object.entries(f.columns)) {
    if (value !== undefined) base = base.where(column as 'type', '=', value);
  }
  const [rows, count] = await Promise.all([
    base.selectAll().orderBy('created_at', 'desc').orderBy('id').limit(f.limit).offset(f.offset).execute(),
    base.select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirst(),
  ]);
  return { rows: rows as Database[T][], total: Number(count?.n ?? 0) };
}

/** Applies a set of columns to one row of the scope; false when the scope has no row with that id. */
export async function updatePolicyRow<T extends PolicyTable>(
  db: Kysely<Database>,
  table: T,
  scope: TenantScope,
  id: string,
  set: Partial<Database[T]>,
): Promise<boolean> {
  const res = await db
    .updateTable(table as PolicyTable)
    .set(set as Partial<Database['rate_limit_policies']>)
    .where('id', '=', id)
    .where('organisation_id', '=', scope.organisationId)
    .where('workspace_id', 'in', inList(scope))
    .executeTakeFirst();
  return Number(res.numUpdatedRows) > 0;
}
