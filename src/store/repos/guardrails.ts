import type { Store } from '../store.js';
import type { GuardrailsTable } from '../schema.js';

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

export async function insertGuardrail(store: Store, g: StoredGuardrail): Promise<void> {
  await store.db.insertInto('guardrails').values(toRow(g)).execute();
}

/** Replaces the given fields. */
export async function updateGuardrail(store: Store, id: string, patch: Partial<Pick<StoredGuardrail, 'name' | 'checks' | 'actions'>>, now: number): Promise<void> {
  const set: Partial<GuardrailsTable> = { updated_at: now };
  if (patch.name !== undefined) set.name = patch.name;
  if (patch.checks !== undefined) set.checks = JSON.stringify(patch.checks);
  if (patch.actions !== undefined) set.actions = JSON.stringify(patch.actions);
  await store.db.updateTable('guardrails').set(set).where('id', '=', id).execute();
}

export async function deleteGuardrail(store: Store, id: string): Promise<void> {
  await store.db.deleteFrom('guardrails').where('id', '=', id).execute();
}

/** One guardrail by id or slug within a set of workspaces. */
export async function getGuardrail(store: Store, idOrSlug: string, workspaceIds?: string[]): Promise<StoredGuardrail | undefined> {
  let q = store.db.selectFrom('guardrails').selectAll().where((eb) => eb.or([eb('id', '=', idOrSlug), eb('slug', '=', idOrSlug)]));
  if (workspaceIds) q = q.where('workspace_id', 'in', workspaceIds);
  const row = await q.executeTakeFirst();
  return row && fromRow(row);
}

/**
 * A page of the guardrails of the given workspaces, newest first, with the total. `ids` keeps only
 * those ids (or slugs); the total then counts the matches.
 */
export async function listGuardrails(store: Store, f: { workspaceIds: string[]; ids?: string[]; limit: number; offset: number }): Promise<{ rows: StoredGuardrail[]; total: number }> {
  if (f.workspaceIds.length === 0 || (f.ids && f.ids.length === 0)) return { rows: [], total: 0 };
  let base = store.db.selectFrom('guardrails').where('workspace_id', 'in', f.workspaceIds);
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

function toRow(g: StoredGuardrail): GuardrailsTable {
  return { ...g, checks: JSON.stringify(g.checks), actions: JSON.stringify(g.actions) };
}

function fromRow(r: GuardrailsTable): StoredGuardrail {
  return { ...r, checks: JSON.parse(r.checks), actions: JSON.parse(r.actions), created_at: Number(r.created_at), updated_at: Number(r.updated_at) };
}
