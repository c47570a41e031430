import type { Kysely, Updateable } from 'kysely';
import type { Store } from '../../infra/store/store.js';
import type { Database } from '../../infra/store/schema.js';
import { assertInScope, inList } from '../../infra/store/repos/tenant.js';
import type { TenantScope } from '../../kernel/tenant-scope.js';
import type { GuardrailRow, GuardrailsTable, NewGuardrailRow } from './guardrails-tables.js';

/** One check of a stored guardrail: a catalogue id and its parameters. */
export interface StoredCheck {
  id: string;
  parameters: Record<string, unknown>;
}

/** What a failed (or passed) stored guardrail does: `{deny, async, on_fail, on_success}`. */
export interface GuardrailActions {
  deny?: boolean;
  async?: boolean;
  on_fail?: { deny?: boolean; feedback?: Record<string, unknown> };
  on_success?: { deny?: boolean; feedback?: Record<string, unknown> };
}

/** A stored guardrail, referenced from a config by id or slug (`/v1/guardrails`). */
export interface StoredGuardrail {
  id: string;
  organisation_id: string;
  workspace_id: string;
  name: string;
  slug: string;
  checks: StoredCheck[];
  actions: GuardrailActions;
  created_at: number;
  updated_at: number;
}

/** Inserts a guardrail into a workspace of the scope. */
export async function insertGuardrail(db: Kysely<Database>, scope: TenantScope, g: StoredGuardrail): Promise<void> {
  assertInScope(scope, g.organisation_id, g.workspace_id);
  await db.insertInto('guardrails').values(toRow(g)).execute();
}

/** Replaces the given fields of a guardrail of the scope. */
export async function updateGuardrail(
  db: Kysely<Database>,
  scope: TenantScope,
  id: string,
  patch: Partial<Pick<StoredGuardrail, 'name' | 'checks' | 'actions'>>,
  now: number,
): Promise<void> {
  const set: Updateable<GuardrailsTable> = { updated_at: now };
  if (patch.name !== undefined) set.name = patch.name;
  if (patch.checks !== undefined) set.checks = JSON.stringify(patch.checks);
  if (patch.actions !== undefined) set.actions = JSON.stringify(patch.actions);
  await db.updateTable('guardrails').set(set).where('id', '=', id).where('workspace_id', 'in', inList(scope)).execute();
}

/** Deletes a guardrail of the scope. */
export async function deleteGuardrail(db: Kysely<Database>, scope: TenantScope, id: string): Promise<void> {
  await db.deleteFrom('guardrails').where('id', '=', id).where('workspace_id', 'in', inList(scope)).execute();
}

/** One guardrail of the scope by id or slug. */
export async function getGuardrail(db: Kysely<Database>, scope: TenantScope, idOrSlug: string): Promise<StoredGuardrail | undefined> {
  const row = await db
    .selectFrom('guardrails')
    .selectAll()
    .where((eb) => eb.or([eb('id', '=', idOrSlug), eb('slug', '=', idOrSlug)]))
    .where('organisation_id', '=', scope.organisationId)
    .where('workspace_id', 'in', inList(scope))
    .executeTakeFirst();
  return row && fromRow(row);
}

/**
 * A page of the scope's guardrails, newest first, with the total. `ids` keeps only those ids (or
 * slugs); the total then counts the matches.
 */
export async function listGuardrails(
  db: Kysely<Database>,
  scope: TenantScope,
  f: { ids?: string[]; limit: number; offset: number },
): Promise<{ rows: StoredGuardrail[]; total: number }> {
  if (scope.workspaceIds.length === 0 || (f.ids && f.ids.length === 0)) return { rows: [], total: 0 };
  let base = db.selectFrom('guardrails').where('organisation_id', '=', scope.organisationId).where('workspace_id', 'in', inList(scope));
  if (f.ids) {
    const ids = f.ids;
    base = base.where((eb) => eb.or([eb('id', 'in', ids), eb('slug', 'in', ids)]));
  }
  const [rows, count] = await Promise.all([
    base.selectAll().orderBy('created_at', 'desc').orderBy('id').limit(f.limit).offset(f.offset).execute(),
    base.select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirst(),
  ]);
  return { rows: rows.map(fromRow), total: Number(count?.n ?? 0) };
}

/** Every stored guardrail, or those of some workspaces (the runtime snapshot's source). */
export async function listAllGuardrails(store: Store, workspaceIds?: readonly string[]): Promise<StoredGuardrail[]> {
  let q = store.db.selectFrom('guardrails').selectAll();
  if (workspaceIds) q = q.where('workspace_id', 'in', [...workspaceIds]);
  const rows = await q.execute();
  return rows.map(fromRow);
}

function toRow(g: StoredGuardrail): NewGuardrailRow {
  return { ...g, checks: JSON.stringify(g.checks), actions: JSON.stringify(g.actions) };
}

function fromRow(r: GuardrailRow): StoredGuardrail {
  return {
    ...r,
    checks: JSON.parse(r.checks),
    actions: JSON.parse(r.actions),
    created_at: Number(r.created_at),
    updated_at: Number(r.updated_at),
  };
}
