import { Type, type Static } from 'typebox';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { GatewayError } from '../errors/gateway-error.js';
import { sha256Hex } from '../lib/hash.js';
import { randomId, uuid } from '../lib/ids.js';
import { getApiKey, insertApiKey, listApiKeys, updateApiKey, type ApiKeyRecord, type ApiKeyType } from '../store/repos/api-keys.js';
import type { GatewayDeps } from '../server/deps.js';
import { workspaceScope, writeWorkspace } from '../server/middleware/auth/auth.js';
import { PageQuery, iso, pageOf } from './paging.js';

const KeyType = Type.Union([Type.Literal('organisation-service'), Type.Literal('workspace-service'), Type.Literal('workspace-user')]);
const Time = Type.Union([Type.String({ format: 'date-time' }), Type.Integer({ minimum: 0 }), Type.Null()]);
const RotationPolicy = Type.Object(
  {
    rotation_period: Type.Optional(Type.Union([Type.Literal('weekly'), Type.Literal('monthly')])),
    next_rotation_at: Type.Optional(Type.String({ format: 'date-time' })),
    key_transition_period_ms: Type.Optional(Type.Integer({ minimum: 30 * 60 * 1000 })),
  },
  { additionalProperties: false },
);
const CreateBody = Type.Object(
  {
    name: Type.String({ minLength: 1, maxLength: 200 }),
    type: Type.Optional(KeyType),
    workspace_id: Type.Optional(Type.String({ minLength: 1 })),
    scopes: Type.Optional(Type.Array(Type.String({ minLength: 1 }))),
    expires_at: Type.Optional(Time),
    rotation_policy: Type.Optional(Type.Union([RotationPolicy, Type.Null()])),
    metadata: Type.Optional(Type.Record(Type.String(), Type.String())),
  },
  { additionalProperties: false },
);
const UpdateBody = Type.Object(
  {
    name: Type.Optional(Type.String({ minLength: 1, maxLength: 200 })),
    scopes: Type.Optional(Type.Array(Type.String({ minLength: 1 }))),
    expires_at: Type.Optional(Time),
    rotation_policy: Type.Optional(Type.Union([RotationPolicy, Type.Null()])),
    metadata: Type.Optional(Type.Record(Type.String(), Type.String())),
  },
  { additionalProperties: false },
);
const RotateBody = Type.Object({ key_transition_period_ms: Type.Optional(Type.Integer({ minimum: 30 * 60 * 1000 })) }, { additionalProperties: false });
const IdParams = Type.Object({ id: Type.String() });
const ListQuery = Type.Object({ ...PageQuery, workspace_id: Type.Optional(Type.String()) }, { additionalProperties: false });

/** Generates a new key value: `API_KEY_PREFIX` (when set) followed by 48 random characters. */
export function newKeyValue(prefix: string): string {
  return `${prefix}${randomId(48)}`;
}

function toTime(v: string | number | null | undefined): number | null | undefined {
  if (v === undefined || v === null) return v;
  return typeof v === 'number' ? v * 1000 : Date.parse(v);
}

/** The public view of a key (never its hash). */
export function presentKey(k: ApiKeyRecord): Record<string, unknown> {
  return {
    id: k.id,
    object: 'api_key',
    name: k.name,
    type: k.type,
    organisation_id: k.organisation_id,
    workspace_id: k.workspace_id,
    scopes: k.scopes,
    status: k.status === 'revoked' ? 'revoked' : 'active',
    key_hint: k.key_hint,
    expires_at: iso(k.expires_at),
    rotation_policy: k.rotation_policy,
    metadata: Object.fromEntries(Object.entries(k.metadata).filter(([name]) => !name.startsWith('previous_key_'))),
    created_at: iso(k.created_at),
    updated_at: iso(k.updated_at),
  };
}

async function loadOwned(deps: GatewayDeps, request: FastifyRequest, id: string): Promise<ApiKeyRecord> {
  const key = request.gw.key!;
  const k = await getApiKey(deps.store, id);
  if (!k || k.status !== 'active' || k.organisation_id !== key.organisationId || (key.workspaceId && k.workspace_id !== key.workspaceId)) {
    throw new GatewayError('not_found', `Unknown API key '${id}'.`);
  }
  return k;
}

/** `/v1/api-keys`: create (value shown once), list, read, update, delete (revoke), rotate. */
export function registerApiKeyRoutes(app: FastifyInstance, deps: GatewayDeps): void {
  const tags = ['api keys'];
  app.post('/v1/api-keys', { config: { permission: 'api_keys.write' }, schema: { body: CreateBody, tags, summary: 'Create a gateway API key' } }, async (request, reply) => {
    const caller = request.gw.key!;
    const body = request.body as Static<typeof CreateBody>;
    const type: ApiKeyType = body.type ?? 'workspace-service';
    if (type === 'organisation-service' && caller.workspaceId) throw new GatewayError('forbidden', 'A workspace key cannot create organisation keys.');
    const workspaceId = type === 'organisation-service' ? null : writeWorkspace(request, deps.runtime, body.workspace_id);
    const expiresAt = toTime(body.expires_at) ?? null;
    if (expiresAt !== null && Number.isNaN(expiresAt)) throw new GatewayError('invalid_request', 'body.expires_at is not a valid time.', { param: 'expires_at' });
    const value = newKeyValue(deps.settings.apiKeyPrefix);
    const now = deps.clock.now();
    const record: ApiKeyRecord = {
      id: uuid(),
      organisation_id: caller.organisationId,
      workspace_id: workspaceId,
      name: body.name,
      type,
      key_hash: sha256Hex(value),
      key_hint: value.slice(0, Math.min(value.length, deps.settings.apiKeyPrefix.length + 4)),
      scopes: body.scopes ?? [],
      status: 'active',
      expires_at: expiresAt,
      rotation_policy: body.rotation_policy ?? null,
      metadata: body.metadata ?? {},
      created_at: now,
      updated_at: now,
    };
    await insertApiKey(deps.store, record);
    await deps.runtime.changed();
    return reply.code(201).send({ ...presentKey(record), key: value });
  });

  app.get('/v1/api-keys', { config: { permission: 'api_keys.read' }, schema: { querystring: ListQuery, tags, summary: 'List gateway API keys' } }, async (request) => {
    const caller = request.gw.key!;
    const q = request.query as Static<typeof ListQuery>;
    const ws = q.workspace_id ? workspaceScope(request, deps.runtime, q.workspace_id)[0] : (caller.workspaceId ?? undefined);
    const { rows, total } = await listApiKeys(deps.store, { organisationId: caller.organisationId, workspaceId: ws, ...pageOf(q) });
    return { object: 'list', data: rows.map(presentKey), total };
  });

  app.get('/v1/api-keys/:id', { config: { permission: 'api_keys.read' }, schema: { params: IdParams, tags, summary: 'Read a gateway API key' } }, async (request) => {
    return presentKey(await loadOwned(deps, request, (request.params as { id: string }).id));
  });

  app.put('/v1/api-keys/:id', { config: { permission: 'api_keys.write' }, schema: { params: IdParams, body: UpdateBody, tags, summary: 'Update a gateway API key' } }, async (request) => {
    const k = await loadOwned(deps, request, (request.params as { id: string }).id);
    const body = request.body as Static<typeof UpdateBody>;
    const expiresAt = toTime(body.expires_at);
    if (typeof expiresAt === 'number' && Number.isNaN(expiresAt)) throw new GatewayError('invalid_request', 'body.expires_at is not a valid time.', { param: 'expires_at' });
    await updateApiKey(deps.store, k.id, { name: body.name, scopes: body.scopes, expires_at: expiresAt, rotation_policy: body.rotation_policy, metadata: body.metadata }, deps.clock.now());
    await deps.runtime.changed();
    return presentKey((await getApiKey(deps.store, k.id))!);
  });

  app.delete('/v1/api-keys/:id', { config: { permission: 'api_keys.write' }, schema: { params: IdParams, tags, summary: 'Delete (revoke) a gateway API key' } }, async (request) => {
    const k = await loadOwned(deps, request, (request.params as { id: string }).id);
    await updateApiKey(deps.store, k.id, { status: 'revoked' }, deps.clock.now());
    await deps.runtime.changed();
    return { id: k.id, object: 'api_key', deleted: true };
  });

  app.post('/v1/api-keys/:id/rotate', { config: { permission: 'api_keys.rotate' }, schema: { params: IdParams, body: Type.Optional(RotateBody), tags, summary: 'Rotate a gateway API key' } }, async (request) => {
    const k = await loadOwned(deps, request, (request.params as { id: string }).id);
    const body = (request.body ?? {}) as Static<typeof RotateBody>;
    const transition = body.key_transition_period_ms ?? (typeof k.rotation_policy?.key_transition_period_ms === 'number' ? k.rotation_policy.key_transition_period_ms : 30 * 60 * 1000);
    const now = deps.clock.now();
    const value = newKeyValue(deps.settings.apiKeyPrefix);
    await updateApiKey(
      deps.store,
      k.id,
      {
        key_hash: sha256Hex(value),
        key_hint: value.slice(0, Math.min(value.length, deps.settings.apiKeyPrefix.length + 4)),
        metadata: { ...k.metadata, previous_key_hash: k.key_hash, previous_key_valid_until: String(now + transition) },
      },
      now,
    );
    await deps.runtime.changed();
    return { ...presentKey((await getApiKey(deps.store, k.id))!), key: value, previous_key_valid_until: iso(now + transition) };
  });
}
