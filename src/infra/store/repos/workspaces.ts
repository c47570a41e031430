import type { Kysely } from 'kysely';
import type { Database, WorkspacesTable } from '../schema.js';
import type { TenantScope } from '../../../kernel/tenant-scope.js';
import { toWorkspace, type Workspace } from './organisations.js';
import { assertInScope, inList } from './tenant.js';

function scoped(db: Kysely<Database>, scope: TenantScope) {
  return db.selectFrom('workspaces').where('organisation_id', '=', scope.organisationId).where('id', 'in', inList(scope));
}

/** A workspace of the scope by id or slug (any status), or undefined. */
export async function getWorkspace(db: Kysely<Database>, scope: TenantScope, idOrSlug: string): Promise<Workspace | undefined> {
  const row = await scoped(db, scope)
    .selectAll()
    .where((eb) => eb.or([eb('id', '=', idOrSlug), eb('slug', '=', idOrSlug)]))
    .executeTakeFirst();
  return row && toWorkspace(row);
}

/** A page of the scope's workspaces with one of `statuses`, oldest first, with the total. */
export async function listScopedWorkspaces(
  db: Kysely<Database>,
  scope: TenantScope,
  statuses: readonly string[],
  page: { limit: number; offset: number },
): Promise<{ rows: Workspace[]; total: number }> {
  const q = scoped(db, scope).where('status', 'in', [...statuses]);
  const [rows, count] = await Promise.all([
    q.selectAll().orderBy('created_at').orderBy('id').limit(page.limit).offset(page.offset).execute(),
    q.select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirst(),
  ]);
  return { rows: rows.map(toWorkspace), total: Number(count?.n ?? 0) };
}

/** Inserts a workspace of an organisation (a clashing slug violates the unique constraint). */
export async function insertWorkspaceRow(db: Kysely<Database>, w: Workspace): Promise<void> {
  await db.insertInto('workspaces').values(toRow(w)).execute();
}

/** Saves a workspace of the scope as given. */
export async function saveWorkspace(db: Kysely<Database>, scope: TenantScope, w: Workspace): Promise<void> {
  assertInScope(scope, w.organisation_id, w.id);
  const { id, organisation_id: _o, created_at: _c, ...row } = toRow(w);
  await db.updateTable('workspaces').set(row).where('id', '=', id).where('organisation_id', '=', scope.organisationId).execute();
}

function toRow(w: Workspace): WorkspacesTable {
  return {
    ...w,
    settings: JSON.stringify(w.settings),
    metadata: JSON.stringify(w.metadata),
    defaults: w.defaults ? JSON.stringify(w.defaults) : null,
  };
}
