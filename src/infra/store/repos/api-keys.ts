import type { RuntimePage, Store } from '../store.js';
import type { ExpressionBuilder, Kysely } from 'kysely';
import type { ApiKeysTable, Database } from '../schema.js';
import type { TenantScope } from '../../../kernel/tenant-scope.js';
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
  /** Hash of the value before the last rotation; it authenticates until `key_transition_expires_at`. */
  previous_key_hash?: string | null;
  key_transition_expires_at?: number | null;
  /** `api` (made by `POST /v1/api-keys`, the default) or `auto` (made when a user joined a workspace). */
  creation_mode?: ApiKeyCreationMode;
  /** When the key last authenticated a request (ms; recorded in batches, seconds late at most). */
  last_used_at?: number | null;
  /** When the schedule rotates the key next (ms), or null. */
  next_rotation_at?: number | null;
  /** A value waiting to be shown once by `reveal`, sealed by the gateway's secret box (context: the key id). */
  pending_key_ciphertext?: string | null;
  /** When the pending value was shown. */
  pending_key_revealed_at?: number | null;
  /** The user a `workspace-user` key belongs to (absent or null when none). */
  user_id?: string | null;
  /** True for the instance operator's key (the bootstrap's admin key; absent on every other key). */
  instance_operator?: boolean;
  created_at: number;
  updated_at: number;
}

export type ApiKeyCreationMode = 'api' | 'auto';

/** Inserts a key into the scope's organisation (and, for a workspace key, one of its workspaces). */
export async function insertApiKey(db: Kysely<Database>, scope: TenantScope, key: ApiKeyRecord): Promise<void> {
  assertInScope(scope, key.organisation_id, key.workspace_id);
  await db.insertInto('api_keys').values(toRow(key)).execute();
}

function scoped(db: Kysely<Database>, scope: TenantScope) {
  return db
    .selectFrom('api_keys')
    .where('organisation_id', '=', scope.organisationId)
    .where((eb) =>
      scope.organisationWide
        ? eb.or([eb('workspace_id', 'is', null), eb('workspace_id', 'in', inList(scope))])
        : eb('workspace_id', 'in', inList(scope)),
    );
}

/** One key of the scope, whatever its status. */
export async function getApiKey(db: Kysely<Database>, scope: TenantScope, id: string): Promise<ApiKeyRecord | undefined> {
  const row = await scoped(db, scope).selectAll().where('id', '=', id).executeTakeFirst();
  return row && fromRow(row);
}

/** Lists the scope's active keys, newest first, with the total count. */
export async function listApiKeys(
  db: Kysely<Database>,
  scope: TenantScope,
  page: { limit: number; offset: number },
): Promise<{ rows: ApiKeyRecord[]; total: number }> {
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
export async function updateApiKey(
  db: Kysely<Database>,
  scope: TenantScope,
  id: string,
  patch: Partial<
    Pick<
      ApiKeyRecord,
      | 'name'
      | 'scopes'
      | 'expires_at'
      | 'rotation_policy'
      | 'metadata'
      | 'defaults'
      | 'status'
      | 'key_hash'
      | 'key_hint'
      | 'next_rotation_at'
    >
  >,
  now: number,
): Promise<void> {
  const row: Partial<ApiKeysTable> = { updated_at: now };
  if (patch.name !== undefined) row.name = patch.name;
  if (patch.scopes !== undefined) row.scopes = JSON.stringify(patch.scopes);
  if (patch.expires_at !== undefined) row.expires_at = patch.expires_at;
  if (patch.rotation_policy !== undefined)
    row.rotation_policy = patch.rotation_policy === null ? null : JSON.stringify(patch.rotation_policy);
  if (patch.metadata !== undefined) row.metadata = JSON.stringify(patch.metadata);
  if (patch.defaults !== undefined) row.defaults = patch.defaults === null ? null : JSON.stringify(patch.defaults);
  if (patch.status !== undefined) row.status = patch.status;
  if (patch.key_hash !== undefined) row.key_hash = patch.key_hash;
  if (patch.key_hint !== undefined) row.key_hint = patch.key_hint;
  if (patch.next_rotation_at !== undefined) row.next_rotation_at = patch.next_rotation_at;
  const visible = scoped(db, scope).select('id').where('id', '=', id);
  await db.updateTable('api_keys').set(row).where('id', 'in', visible).execute();
}

/** A new value for a key: the current one becomes the previous one until `transitionEndsAt`. */
export interface KeyRotation {
  keyHash: string;
  keyHint: string;
  transitionEndsAt: number;
  /** The new value sealed for `reveal` (scheduled rotations), or null (the caller got it in the answer). */
  pendingCiphertext: string | null;
  /** The next scheduled rotation (scheduled rotations set it; a manual rotation leaves it unchanged). */
  nextRotationAt?: number | null;
}

function rotationSet(r: KeyRotation, now: number) {
  return (eb: ExpressionBuilder<Database, 'api_keys'>) => ({
    previous_key_hash: eb.ref('key_hash'),
    key_hash: r.keyHash,
    key_hint: r.keyHint,
    key_transition_expires_at: r.transitionEndsAt,
    pending_key_ciphertext: r.pendingCiphertext,
    pending_key_revealed_at: null,
    ...(r.nextRotationAt !== undefined ? { next_rotation_at: r.nextRotationAt } : {}),
    updated_at: now,
  });
}

/** No transition open at `now`: at most two values are ever live. */
function transitionClosed(eb: ExpressionBuilder<Database, 'api_keys'>, now: number) {
  return eb.or([eb('key_transition_expires_at', 'is', null), eb('key_transition_expires_at', '<=', now)]);
}

/**
 * Rotates an active key of the scope unless a transition is still open at `now`, as one conditional
 * UPDATE (two concurrent rotations cannot both pass: the second sees the first's transition). Returns
 * whether it rotated.
 */
export async function rotateApiKey(db: Kysely<Database>, scope: TenantScope, id: string, r: KeyRotation, now: number): Promise<boolean> {
  const visible = scoped(db, scope).select('id').where('id', '=', id);
  const res = await db
    .updateTable('api_keys')
    .set(rotationSet(r, now))
    .where('id', 'in', visible)
    .where('status', '=', 'active')
    .where((eb) => transitionClosed(eb, now))
    .executeTakeFirst();
  return Number(res.numUpdatedRows) === 1;
}

/**
 * Keys whose scheduled rotation is due at `now`, that have no open transition and have not expired
 * (system read of the scheduler, every tenant), soonest first.
 */
export async function listDueRotations(db: Kysely<Database>, now: number, limit: number): Promise<ApiKeyRecord[]> {
  const rows = await db
    .selectFrom('api_keys')
    .selectAll()
    .where('status', '=', 'active')
    .where('next_rotation_at', '<=', now)
    .where((eb) => transitionClosed(eb, now))
    .where((eb) => eb.or([eb('expires_at', 'is', null), eb('expires_at', '>', now)]))
    .orderBy('next_rotation_at')
    .limit(limit)
    .execute();
  return rows.map(fromRow);
}

/**
 * Claims and performs one scheduled rotation (system write, any tenant): a compare-and-set on
 * `next_rotation_at` = `due`, so among replicas racing for the same due key exactly one UPDATE
 * matches (PostgreSQL re-checks the condition after a concurrent commit; SQLite has one writer).
 * Returns whether this caller rotated it.
 */
export async function claimScheduledRotation(db: Kysely<Database>, id: string, due: number, r: KeyRotation, now: number): Promise<boolean> {
  const res = await db
    .updateTable('api_keys')
    .set(rotationSet(r, now))
    .where('id', '=', id)
    .where('status', '=', 'active')
    .where('next_rotation_at', '=', due)
    .where((eb) => transitionClosed(eb, now))
    .executeTakeFirst();
  return Number(res.numUpdatedRows) === 1;
}

/**
 * Takes a key's pending value for `reveal`: clears it and records when it was shown, once (a
 * conditional UPDATE, so two concurrent reveals cannot both get it). `none`: the key never had one;
 * `revealed`: it was shown already (at `at`).
 */
export async function takePendingKey(
  db: Kysely<Database>,
  scope: TenantScope,
  id: string,
  now: number,
): Promise<{ ciphertext: string } | { none: true } | { revealedAt: number }> {
  const row = await scoped(db, scope).select(['pending_key_ciphertext', 'pending_key_revealed_at']).where('id', '=', id).executeTakeFirst();
  const ciphertext = row?.pending_key_ciphertext ?? null;
  if (ciphertext === null)
    return row?.pending_key_revealed_at != null ? { revealedAt: Number(row.pending_key_revealed_at) } : { none: true };
  const res = await db
    .updateTable('api_keys')
    .set({ pending_key_ciphertext: null, pending_key_revealed_at: now })
    .where('id', '=', id)
    .where('pending_key_ciphertext', '=', ciphertext)
    .executeTakeFirst();
  return Number(res.numUpdatedRows) === 1 ? { ciphertext } : { revealedAt: now };
}

/**
 * Whether `id` is the instance operator's key (the bootstrap's admin key), active, of `organisationId`.
 * Read from the store at the time of the request, not from the runtime snapshot.
 */
export async function isInstanceOperatorKey(db: Kysely<Database>, id: string, organisationId: string): Promise<boolean> {
  const row = await db
    .selectFrom('api_keys')
    .select('instance_operator')
    .where('id', '=', id)
    .where('organisation_id', '=', organisationId)
    .where('type', '=', 'organisation-service')
    .where('workspace_id', 'is', null)
    .where('status', '=', 'active')
    .executeTakeFirst();
  return Number(row?.instance_operator ?? 0) === 1;
}

/** Records that these keys authenticated requests at `at` (never moves `last_used_at` back). */
export async function touchApiKeys(db: Kysely<Database>, ids: readonly string[], at: number): Promise<void> {
  for (let i = 0; i < ids.length; i += 500) {
    await db
      .updateTable('api_keys')
      .set({ last_used_at: at })
      .where('id', 'in', ids.slice(i, i + 500))
      .where((eb) => eb.or([eb('last_used_at', 'is', null), eb('last_used_at', '<', at)]))
      .execute();
  }
}

function toRow(k: ApiKeyRecord): ApiKeysTable {
  const { instance_operator, ...rest } = k;
  return {
    ...rest,
    // Written only for the operator's key: every other row takes the column's default (0).
    ...(instance_operator ? { instance_operator: 1 } : {}),
    scopes: JSON.stringify(k.scopes),
    rotation_policy: k.rotation_policy ? JSON.stringify(k.rotation_policy) : null,
    metadata: JSON.stringify(k.metadata),
    defaults: k.defaults ? JSON.stringify(k.defaults) : null,
  };
}

/** A nullable bigint column as a number (PostgreSQL returns bigint as a string). */
function num(v: number | string | null | undefined): number | null {
  return v === null || v === undefined ? null : Number(v);
}

function fromRow(row: ApiKeysTable): ApiKeyRecord {
  // A key without defaults reads back without the field, as it was written.
  const { defaults, user_id, instance_operator, ...r } = row;
  return {
    ...r,
    ...(user_id ? { user_id } : {}),
    ...(Number(instance_operator ?? 0) === 1 ? { instance_operator: true } : {}),
    type: r.type as ApiKeyType,
    status: r.status as ApiKeyRecord['status'],
    scopes: JSON.parse(r.scopes),
    rotation_policy: r.rotation_policy ? JSON.parse(r.rotation_policy) : null,
    metadata: JSON.parse(r.metadata),
    ...(defaults ? { defaults: JSON.parse(defaults) as ApiKeyDefaults } : {}),
    expires_at: r.expires_at === null ? null : Number(r.expires_at),
    previous_key_hash: r.previous_key_hash ?? null,
    key_transition_expires_at: num(r.key_transition_expires_at),
    creation_mode: (r.creation_mode ?? 'api') as ApiKeyCreationMode,
    last_used_at: num(r.last_used_at),
    next_rotation_at: num(r.next_rotation_at),
    pending_key_ciphertext: r.pending_key_ciphertext ?? null,
    pending_key_revealed_at: num(r.pending_key_revealed_at),
    created_at: Number(r.created_at),
    updated_at: Number(r.updated_at),
  };
}
