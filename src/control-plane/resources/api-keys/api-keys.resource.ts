import { API_KEYS_SECTION } from '../../../runtime/core-sections.js';
import { Type } from 'typebox';
import { GatewayError } from '../../../errors/gateway-error.js';
import { sha256Hex } from '../../../lib/hash.js';
import { uuid } from '../../../lib/ids.js';
import { getApiKey, insertApiKey, listApiKeys, updateApiKey, type ApiKeyRecord, type ApiKeyType } from '../../../store/repos/api-keys.js';
import { checkKeyDefaults } from './key-defaults.js';
import { defineAction, defineResource, type ResourceContext } from '../../resource/define-resource.js';
import { iso } from '../../resource/paging.js';
import { ApiKeyAnswer, CreateApiKey, CreatedApiKey, RotateApiKey, RotatedApiKey, UpdateApiKey } from './api-key-schemas.js';
import { assertTypeWithinReach, grantScopes } from './grant-scopes.js';
import { keyHint, newKeyValue } from './key-value.js';
import { assertOwnKey, keyUserOf } from './key-user.js';

const DEFAULT_TRANSITION_MS = 30 * 60 * 1000;

function toTime(v: string | number | null | undefined, param: string): number | null | undefined {
  if (v === undefined || v === null) return v;
  const ms = typeof v === 'number' ? v * 1000 : Date.parse(v);
  if (Number.isNaN(ms)) throw new GatewayError('invalid_request', `body.${param} is not a valid time.`, { param });
  return ms;
}

/** The public view of a key (never its value or hash; rotation bookkeeping hidden). */
export function presentKey(k: ApiKeyRecord) {
  return {
    id: k.id,
    object: 'api_key' as const,
    name: k.name,
    type: k.type,
    organisation_id: k.organisation_id,
    workspace_id: k.workspace_id,
    user_id: k.user_id ?? null,
    scopes: k.scopes,
    status: k.status === 'revoked' ? ('revoked' as const) : ('active' as const),
    key_hint: k.key_hint,
    expires_at: iso(k.expires_at),
    rotation_policy: k.rotation_policy,
    metadata: Object.fromEntries(Object.entries(k.metadata).filter(([name]) => !name.startsWith('previous_key_'))),
    defaults: k.defaults ?? null,
    created_at: iso(k.created_at),
    updated_at: iso(k.updated_at),
  };
}

/** Organisation-level keys are within reach of organisation principals only. */
function writeScope(ctx: ResourceContext) {
  return { ...ctx.scope, organisationWide: ctx.principal.workspaceId === null };
}

async function reread(ctx: ResourceContext, id: string): Promise<ApiKeyRecord> {
  const k = await getApiKey(ctx.db, writeScope(ctx), id);
  if (!k) throw new GatewayError('not_found', `Unknown API key '${id}'.`);
  return k;
}

const rotate = defineAction<ApiKeyRecord, typeof RotateApiKey, typeof RotatedApiKey>({
  verb: 'rotate',
  method: 'POST',
  suffix: '/rotate',
  permission: 'api_keys.rotate',
  write: true,
  summary: 'Rotate a gateway API key (the previous value works during the transition period)',
  body: RotateApiKey,
  answer: RotatedApiKey,
  async run(ctx, k, body) {
    // Rotating hands the caller the new value: another key is rotated only by a principal that could have created it.
    assertOwnKey(ctx.principal, k);
    if (k.id !== ctx.principal.keyId) {
      assertTypeWithinReach(ctx.principal, k.type);
      grantScopes(ctx.principal, k.type, k.scopes);
    }
    const policy = k.rotation_policy?.key_transition_period_ms;
    const transition = body?.key_transition_period_ms ?? (typeof policy === 'number' ? policy : DEFAULT_TRANSITION_MS);
    const prefix = ctx.deps.settings.apiKeyPrefix;
    const value = newKeyValue(prefix);
    const patch = { key_hash: sha256Hex(value), key_hint: keyHint(value, prefix), metadata: { ...k.metadata, previous_key_hash: k.key_hash, previous_key_valid_until: String(ctx.now + transition) } };
    await updateApiKey(ctx.db, writeScope(ctx), k.id, patch, ctx.now);
    const record = await reread(ctx, k.id);
    return { record, answer: { ...presentKey(record), key: value, previous_key_valid_until: iso(ctx.now + transition) }, details: { key_transition_period_ms: transition, rotation_mode: 'manual' } };
  },
});

/**
 * `/v1/api-keys`: gateway keys. Create (value shown once), list, read, update, delete (revoke),
 * rotate. A principal grants only scopes it holds and never changes its own key's scopes.
 */
export const apiKeysResource = defineResource({
  name: 'api_key',
  paths: ['/v1/api-keys'],
  tag: 'api keys',
  noun: { one: 'an API key', many: 'API keys' },
  permissions: { read: 'api_keys.read', write: 'api_keys.write' },
  runtimeSections: [API_KEYS_SECTION],
  schemas: { create: CreateApiKey, update: UpdateApiKey, listQuery: Type.Object({}), answer: ApiKeyAnswer, created: CreatedApiKey },
  removal: 'archive',
  repo: {
    async get(db, scope, id) {
      const k = await getApiKey(db, scope, id);
      return k?.status === 'active' ? k : undefined;
    },
    list: (db, scope, _query, page) => listApiKeys(db, scope, page),
    remove: (db, scope, k, now) => updateApiKey(db, scope, k.id, { status: 'revoked' }, now),
  },
  idOf: (k) => k.id,
  workspaceOf: (k) => k.workspace_id,
  present: presentKey,
  beforeRemove: (ctx, k) => assertOwnKey(ctx.principal, k),
  async create(ctx, body) {
    const type: ApiKeyType = body.type ?? 'workspace-service';
    if (type === 'organisation-service' && ctx.principal.workspaceId !== null) throw new GatewayError('forbidden', 'A workspace key cannot create organisation keys.');
    assertTypeWithinReach(ctx.principal, type);
    const scopes = grantScopes(ctx.principal, type, body.scopes);
    const prefix = ctx.deps.settings.apiKeyPrefix;
    const value = newKeyValue(prefix);
    const workspaceId = type === 'organisation-service' ? null : ctx.workspaceId;
    const userId = await keyUserOf(ctx, type, workspaceId, body.user_id);
    const record: ApiKeyRecord = {
      id: uuid(),
      organisation_id: ctx.principal.organisationId,
      workspace_id: workspaceId,
      name: body.name,
      type,
      key_hash: sha256Hex(value),
      key_hint: keyHint(value, prefix),
      scopes,
      status: 'active',
      expires_at: toTime(body.expires_at, 'expires_at') ?? null,
      rotation_policy: body.rotation_policy ?? null,
      metadata: body.metadata ?? {},
      defaults: await checkKeyDefaults(ctx, workspaceId, body.defaults),
      ...(userId ? { user_id: userId } : {}),
      created_at: ctx.now,
      updated_at: ctx.now,
    };
    await insertApiKey(ctx.db, writeScope(ctx), record);
    return { record, answer: { ...presentKey(record), key: value }, details: { name: record.name, type, scopes, workspace_id: record.workspace_id, user_id: userId ?? null } };
  },
  async update(ctx, k, body) {
    assertOwnKey(ctx.principal, k);
    if (body.scopes !== undefined) {
      if (k.id === ctx.principal.keyId) throw new GatewayError('forbidden', 'An API key cannot change its own scopes.', { param: 'scopes' });
      grantScopes(ctx.principal, k.type, body.scopes);
    }
    const defaults = body.defaults === undefined ? undefined : await checkKeyDefaults(ctx, k.workspace_id, body.defaults);
    const patch = { name: body.name, scopes: body.scopes, expires_at: toTime(body.expires_at, 'expires_at'), rotation_policy: body.rotation_policy, metadata: body.metadata, defaults };
    await updateApiKey(ctx.db, writeScope(ctx), k.id, patch, ctx.now);
    return { record: await reread(ctx, k.id), details: { changed: Object.keys(body), ...(body.scopes ? { scopes: body.scopes } : {}) } };
  },
  actions: [rotate],
});
