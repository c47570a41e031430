import { API_KEYS_SECTION } from '../../../runtime/core-sections.js';
import { Type } from 'typebox';
import { GatewayError } from '../../../foundation/errors/gateway-error.js';
import { sha256Hex } from '../../../foundation/lib/hash.js';
import { uuid } from '../../../foundation/lib/ids.js';
import {
  getApiKey,
  insertApiKey,
  listApiKeys,
  updateApiKey,
  type ApiKeyRecord,
  type ApiKeyType,
} from '../../../infra/store/repos/api-keys.js';
import { checkKeyDefaults } from './key-defaults.js';
import { defineResource, type ResourceContext } from '../../resource/define-resource.js';
import { ApiKeyAnswer, CreateApiKey, CreatedApiKey, UpdateApiKey } from './api-key-schemas.js';
import { assertTypeWithinReach, grantScopes } from './grant-scopes.js';
import { keyHint, newKeyValue } from './key-value.js';
import { keyOwner, presentKey, reread, writeScope, type KeyRecord } from './present-key.js';
import { dropInlineUsageLimits, replaceInlineUsageLimits, withInlineUsageLimits } from '../usage-limit-policies/inline-usage-limits.js';
import { USAGE_LIMIT_SECTION } from '../../../features/limits/usage-limit-section.js';
import { revealAction, rotateAction } from './key-actions.js';
import { firstRotationAt, type RotationPolicy } from './rotation-schedule.js';
import { userKeyRotationPeriod, withEnforcedPeriod } from './enforced-rotation.js';
import { assertOwnKey, keyUserOf } from './key-user.js';

export { presentKey } from './present-key.js';

function toTime(v: string | number | null | undefined, param: string): number | null | undefined {
  if (v === undefined || v === null) return v;
  const ms = typeof v === 'number' ? v * 1000 : Date.parse(v);
  if (Number.isNaN(ms)) throw new GatewayError('invalid_request', `body.${param} is not a valid time.`, { param });
  return ms;
}

/** A user key's policy with its workspace's enforced rotation period applied (other keys: as given). */
async function policyFor(
  ctx: ResourceContext,
  type: ApiKeyType,
  workspaceId: string | null,
  policy: RotationPolicy | null | undefined,
  creating: boolean,
) {
  if (type !== 'workspace-user' || workspaceId === null) return policy;
  return withEnforcedPeriod(await userKeyRotationPeriod(ctx.db, ctx.principal.organisationId, workspaceId), policy, creating);
}

/**
 * `/v1/api-keys`: gateway keys. Create (value shown once), list, read, update, delete (revoke; every
 * replica refuses the key within a second), rotate, reveal. A principal grants only scopes it holds
 * and never changes its own key's scopes. A `rotation_policy` schedules rotations (the scheduler makes
 * them); user keys follow their workspace's `user_api_key_rotation_period`.
 */
export const apiKeysResource = defineResource({
  name: 'api_key',
  paths: ['/v1/api-keys'],
  tag: 'api keys',
  noun: { one: 'an API key', many: 'API keys' },
  permissions: { read: 'api_keys.read', write: 'api_keys.write' },
  runtimeSections: [API_KEYS_SECTION, USAGE_LIMIT_SECTION],
  schemas: { create: CreateApiKey, update: UpdateApiKey, listQuery: Type.Object({}), answer: ApiKeyAnswer, created: CreatedApiKey },
  removal: 'archive',
  repo: {
    async get(db, scope, id): Promise<KeyRecord | undefined> {
      const k = await getApiKey(db, scope, id);
      return k?.status === 'active' ? (await withInlineUsageLimits(db, scope, [k], keyOwner))[0] : undefined;
    },
    async list(db, scope, _query, page) {
      const { rows, total } = await listApiKeys(db, scope, page);
      return { rows: await withInlineUsageLimits(db, scope, rows, keyOwner), total };
    },
    async remove(db, scope, k, now) {
      await updateApiKey(db, scope, k.id, { status: 'revoked' }, now);
      const owner = keyOwner(k);
      if (owner) await dropInlineUsageLimits(db, k.organisation_id, owner, now);
    },
  },
  idOf: (k) => k.id,
  workspaceOf: (k) => k.workspace_id,
  present: presentKey,
  beforeRemove: (ctx, k) => assertOwnKey(ctx.principal, k),
  async create(ctx, body) {
    const type: ApiKeyType = body.type ?? 'workspace-service';
    if (type === 'organisation-service' && ctx.principal.workspaceId !== null)
      throw new GatewayError('forbidden', 'A workspace key cannot create organisation keys.');
    assertTypeWithinReach(ctx.principal, type);
    const scopes = grantScopes(ctx.principal, type, body.scopes);
    const prefix = ctx.deps.settings.apiKeyPrefix;
    const value = newKeyValue(prefix);
    const workspaceId = type === 'organisation-service' ? null : ctx.workspaceId;
    const policy = (await policyFor(ctx, type, workspaceId, body.rotation_policy, true)) ?? null;
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
      rotation_policy: policy as Record<string, unknown> | null,
      metadata: body.metadata ?? {},
      defaults: await checkKeyDefaults(ctx, workspaceId, body.defaults),
      creation_mode: 'api',
      next_rotation_at: firstRotationAt(policy, ctx.now),
      ...(userId ? { user_id: userId } : {}),
      created_at: ctx.now,
      updated_at: ctx.now,
    };
    await insertApiKey(ctx.db, writeScope(ctx), record);
    if (body.usage_limits !== undefined) {
      const owner = keyOwner(record);
      if (!owner)
        throw new GatewayError(
          'invalid_request',
          'body.usage_limits: an organisation key has no workspace; give its budgets as policies of each workspace.',
          { param: 'usage_limits' },
        );
      await replaceInlineUsageLimits(ctx, owner, body.usage_limits);
    }
    const stored = await reread(ctx, record.id);
    return {
      record: stored,
      answer: { ...presentKey(stored), key: value },
      details: {
        name: record.name,
        type,
        scopes,
        workspace_id: record.workspace_id,
        user_id: userId ?? null,
        ...(policy ? { rotation_policy: policy } : {}),
      },
    };
  },
  async update(ctx, k, body) {
    assertOwnKey(ctx.principal, k);
    if (body.scopes !== undefined) {
      if (k.id === ctx.principal.keyId)
        throw new GatewayError('forbidden', 'An API key cannot change its own scopes.', { param: 'scopes' });
      grantScopes(ctx.principal, k.type, body.scopes);
    }
    const defaults = body.defaults === undefined ? undefined : await checkKeyDefaults(ctx, k.workspace_id, body.defaults);
    const policy =
      body.rotation_policy === undefined ? undefined : await policyFor(ctx, k.type, k.workspace_id, body.rotation_policy, false);
    const schedule =
      policy === undefined
        ? {}
        : { rotation_policy: policy as Record<string, unknown> | null, next_rotation_at: firstRotationAt(policy, ctx.now) };
    const patch = {
      name: body.name,
      scopes: body.scopes,
      expires_at: toTime(body.expires_at, 'expires_at'),
      metadata: body.metadata,
      defaults,
      ...schedule,
    };
    await updateApiKey(ctx.db, writeScope(ctx), k.id, patch, ctx.now);
    if (body.usage_limits !== undefined) {
      const owner = keyOwner(k);
      if (!owner)
        throw new GatewayError(
          'invalid_request',
          'body.usage_limits: an organisation key has no workspace; give its budgets as policies of each workspace.',
          { param: 'usage_limits' },
        );
      await replaceInlineUsageLimits(ctx, owner, body.usage_limits);
    }
    return { record: await reread(ctx, k.id), details: { changed: Object.keys(body), ...(body.scopes ? { scopes: body.scopes } : {}) } };
  },
  actions: [rotateAction, revealAction],
});
