import type { RuntimePage, Store } from '../store.js';
import type { Kysely } from 'kysely';
import type { ApiKeysTable, Database } from '../schema.js';
import type { TenantScope } from '../../kernel/tenant-scope.js';
import { assertInScope, inList } from './tenant.js';

export type ApiKeyType = 'organisation-service' | 'workspace-service' | 'workspace-user';

/**
 * What a key sets for the data-plane requests it authenticates: `config_id` (a stored config of the key's
 * workspace, by id) routes a request that sends no `x-gateway-config`; `metadata` is merged under the
 * request's `x-gateway-metadata`; `allow_config_override: false` refuses an explicit `x-gateway-config`.
 */
export interface ApiKeyDefaults {
  config_id?: string;
  metadata?: Record<string, string>;
  allow_config_override?: boolean;
}

/** A stored gateway key (never holds the key value, only its hash). */
export interface ApiKeyRecord {
  id: string;
  organisation_id: string;
  workspace_id: string | null;
  name: string;
  type: ApiKeyType;
  key_hash: string;
  key_hint: string;
  scopes: string[];
  status: 'active' | 'revoked';
  expires_at: number | null;
  rotation_policy: Record<string, unknown> | null;
  metadata: Record<string, unknown>;
  /** Request defaults; absent or null when none. */
  defaults?: ApiKeyDefaults | null;
  /** The user a `workspace-user` key belongs to (absent or null when none). */
  user_id?: string | null;
  created_at: number;
  updated_at: number;
}

/** Inserts a key into the scope's organisation (and, for a workspace key, one of its workspaces). */
export async function insertApiKey(db: Kysely<Database>, scope: TenantScope, key: ApiKeyRecord): Promise<void> {
  assertInScope(scope, key.organisation_id, key.workspace_id);
  await db.insertInto('api_keys').values(toRow(key)).execute();
}

function scoped(db: Kysely<Database>, scope: TenantScope) {
  return db
    .selectFrom('api_keys')
    .where('organisation_id', '=', scope.organisationId)
    .where((eb) => (scope.organisationWide ? eb.or([eb('workspace_id', 'is', null), eb('workspace_id', 'in', inList(scope))]) : eb('workspace_id', 'in', inList(scope))));
}

/** One key of the scope, whatever its status. */
export async function getApiKey(db: Kysely<Database>, scope: TenantScope, id: string): Promise<ApiKeyRecord | undefined> {
  const row = await scoped(db, scope).selectAll().where('id', '=', id).executeTakeFirst();
  return row && fromRow(row);
}

/** Lists the scope's active keys, newest first, with the total count. */
export async function listApiKeys(db: Kysely<Database>, scope: TenantScope, page: { limit: number; offset: number }): Promise<{ rows: ApiKeyRecord[]; total: number }> {
  const q = scoped(db, scope).where('status', '=', 'active');
  const [rows, count] = await Promise.all([
    q.selectAll().orderBy('created_at', 'desc').orderBy('id').limit(page.limit).offset(page.offset).execute(),
    q.select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirst(),
  ]);
  return { rows: rows.map(fromRow), total: Number(count?.n ?? 0) };
}

/** Every active key (the runtime snapshot's source). */
export async function listActiveApiKeys(store: Store): Promise<ApiKeyRecord[]> {
  const rows = await store.db.selectFrom('api_keys').selectAll().where('status', '=', 'active').execute();
  return rows.map(fromRow);
}

/** A page of active keys by id (the runtime snapshot loads keys in pages, yielding between them). */
export async function listActiveApiKeysPage(store: Store, p: RuntimePage): Promise<ApiKeyRecord[]> {
  let q = store.db.selectFrom('api_keys').selectAll().where('status', '=', 'active');
  if (p.afterId !== undefined) q = q.where('id', '>', p.afterId);
  if (p.workspaceIds) q = q.where('workspace_id', 'in', [...p.workspaceIds]);
  const rows = await q.orderBy('id').limit(p.limit).execute();
  return rows.map(fromRow);
}

/** Updates a key of the scope. */
export async function updateApiKey(db: Kysely<Database>, scope: TenantScope, id: string, patch: Partial<Pick<ApiKeyRecord, 'name' | 'scopes' | 'expires_at' | 'rotation_policy' | 'metadata' | 'defaults' | 'status' | 'key_hash' | 'key_hint'>>, now: number): Promise<void> {
  const row: Partial<ApiKeysTable> = { updated_at: now };
  if (patch.name !== undefined) row.name = patch.name;
  if (patch.scopes !== undefined) row.scopes = JSON.stringify(patch.scopes);
  if (patch.expires_at !== undefined) row.expires_at = patch.expires_at;
  if (patch.rotation_policy !== undefined) row.rotation_policy = patch.rotation_policy === null ? null : JSON.stringify(patch.rotation_policy);
  if (patch.metadata !== undefined) row.metadata = JSON.stringify(patch.metadata);
  if (patch.defaults !== undefined) row.defaults = patch.defaults === null ? null : JSON.stringify(patch.defaults);
  if (patch.status !== undefined) row.status = patch.status;
  if (patch.key_hash !== undefined) row.key_hash = patch.key_hash;
  if (patch.key_hint !== undefined) row.key_hint = patch.key_hint;
  const visible = scoped(db, scope).select('id').where('id', '=', id);
  await db.updateTable('api_keys').set(row).where('id', 'in', visible).execute();
}

function toRow(k: ApiKeyRecord): ApiKeysTable {
  return {
    ...k,
    scopes: JSON.stringify(k.scopes),
    rotation_policy: k.rotation_policy ? JSON.stringify(k.rotation_policy) : null,
    metadata: JSON.stringify(k.metadata),
    defaults: k.defaults ? JSON.stringify(k.defaults) : null,
  };
}

function fromRow(row: ApiKeysTable): ApiKeyRecord {
  // A key without defaults reads back without the field, as it was written.
  const { defaults, user_id, ...r } = row;
  return {
    ...r,
    ...(user_id ? { user_id } : {}),
    type: r.type as ApiKeyType,
    status: r.status as ApiKeyRecord['status'],
    scopes: JSON.parse(r.scopes),
    rotation_policy: r.rotation_policy ? JSON.parse(r.rotation_policy) : null,
    metadata: JSON.parse(r.metadata),
    ...(defaults ? { defaults: JSON.parse(defaults) as ApiKeyDefaults } : {}),
    expires_at: r.expires_at === null ? null : Number(r.expires_at),
    created_at: Number(r.created_at),
    updated_at: Number(r.updated_at),
  };
}
