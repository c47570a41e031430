import type { RuntimePage, Store } from '../store.js';
import type { Kysely } from 'kysely';
import type { Database, VirtualKeysTable } from '../schema.js';
import type { TenantScope } from '../../../kernel/tenant-scope.js';
import { inList } from './tenant.js';

/** A stored provider credential, referenced by `x-gateway-virtual-key` / config `virtual_key` (id or slug). */
export interface VirtualKey {
  id: string;
  workspace_id: string;
  name: string;
  slug: string;
  provider: string;
  secret: string;
  /** Extra provider settings merged into the target (custom_host, cloud credentials, ...). */
  config: Record<string, unknown>;
  status: 'active' | 'archived';
  created_at: number;
  updated_at: number;
  /** The integration whose key and configurations this provider uses (null: its own secret and config). */
  integration_id?: string | null;
}

/** Inserts a virtual key into a workspace of the scope. */
export async function insertVirtualKey(db: Kysely<Database>, scope: TenantScope, v: VirtualKey): Promise<void> {
  if (!scope.workspaceIds.includes(v.workspace_id)) throw new Error(`A write outside the tenant scope (workspace ${v.workspace_id}).`);
  await db.insertInto('virtual_keys').values(toRow(v)).execute();
}

/** Updates a virtual key of the scope. */
export async function updateVirtualKey(
  db: Kysely<Database>,
  scope: TenantScope,
  id: string,
  patch: Partial<Pick<VirtualKey, 'name' | 'secret' | 'config' | 'status'>>,
  now: number,
): Promise<void> {
  const set: Partial<VirtualKeysTable> = { updated_at: now };
  if (patch.name !== undefined) set.name = patch.name;
  if (patch.secret !== undefined) set.secret = patch.secret;
  if (patch.config !== undefined) set.config = JSON.stringify(patch.config);
  if (patch.status !== undefined) set.status = patch.status;
  await db.updateTable('virtual_keys').set(set).where('id', '=', id).where('workspace_id', 'in', inList(scope)).execute();
}

/** One virtual key of the scope by id or slug, active or not. */
export async function getVirtualKey(db: Kysely<Database>, scope: TenantScope, idOrSlug: string): Promise<VirtualKey | undefined> {
  const row = await db
    .selectFrom('virtual_keys')
    .selectAll()
    .where((eb) => eb.or([eb('id', '=', idOrSlug), eb('slug', '=', idOrSlug)]))
    .where('workspace_id', 'in', inList(scope))
    .executeTakeFirst();
  return row && fromRow(row);
}

/** Active virtual keys (paged) of the scope with the total. */
export async function listVirtualKeys(
  db: Kysely<Database>,
  scope: TenantScope,
  page: { limit: number; offset: number },
): Promise<{ rows: VirtualKey[]; total: number }> {
  const base = db.selectFrom('virtual_keys').where('status', '=', 'active').where('workspace_id', 'in', inList(scope));
  const [rows, count] = await Promise.all([
    base.selectAll().orderBy('created_at', 'desc').orderBy('id').limit(page.limit).offset(page.offset).execute(),
    base.select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirst(),
  ]);
  return { rows: rows.map(fromRow), total: Number(count?.n ?? 0) };
}

export async function listActiveVirtualKeys(store: Store): Promise<VirtualKey[]> {
  const rows = await store.db.selectFrom('virtual_keys').selectAll().where('status', '=', 'active').execute();
  return rows.map(fromRow);
}

/** A page of active virtual keys by id (the runtime snapshot loads them in pages). */
export async function listActiveVirtualKeysPage(store: Store, p: RuntimePage): Promise<VirtualKey[]> {
  let q = store.db.selectFrom('virtual_keys').selectAll().where('status', '=', 'active');
  if (p.afterId !== undefined) q = q.where('id', '>', p.afterId);
  if (p.workspaceIds) q = q.where('workspace_id', 'in', [...p.workspaceIds]);
  const rows = await q.orderBy('id').limit(p.limit).execute();
  return rows.map(fromRow);
}

function toRow(v: VirtualKey): VirtualKeysTable {
  return { ...v, config: JSON.stringify(v.config), integration_id: v.integration_id ?? null };
}

function fromRow(r: VirtualKeysTable): VirtualKey {
  return {
    ...r,
    status: r.status as VirtualKey['status'],
    config: JSON.parse(r.config),
    created_at: Number(r.created_at),
    updated_at: Number(r.updated_at),
  };
}
