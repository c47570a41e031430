import { VIRTUAL_KEYS_SECTION } from '../../../runtime/core-sections.js';
import { Type } from 'typebox';
import { GatewayError } from '../../../foundation/errors/gateway-error.js';
import { uuid } from '../../../foundation/lib/ids.js';
import {
  getVirtualKey,
  insertVirtualKey,
  listVirtualKeys,
  updateVirtualKey,
  type VirtualKey,
} from '../../../infra/store/repos/virtual-keys.js';
import { defineResource, type ResourceContext } from '../../resource/define-resource.js';
import { getIntegration } from '../../../infra/store/repos/integrations.js';
import { IsoTime, iso } from '../../../identity/paging.js';
import { Slug } from '../../resource/slug.js';
import { maskCredentialSettings, sealCredentialSettings } from '../../../foundation/lib/credential-settings.js';
import { Nullable } from '../../../foundation/spec/nullable.js';

/**
 * A `config` of an update with each credential that comes back as its hint (an answer sent back
 * unchanged) replaced by the stored sealed value, so a round trip does not overwrite the credential.
 */
function keepUnchangedCredentials(stored: Record<string, unknown>, next: Record<string, unknown>): Record<string, unknown> {
  const masked = maskCredentialSettings(stored);
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(next)) out[k] = masked[k] !== stored[k] && v === masked[k] ? stored[k] : v;
  return out;
}

const Settings = Type.Record(Type.String(), Type.Unknown());
const CreateVirtualKey = Type.Object(
  {
    name: Type.String({ minLength: 1, maxLength: 200 }),
    slug: Type.Optional(Slug),
    provider: Type.Optional(Type.String({ minLength: 1 })),
    integration_id: Type.Optional(Type.String({ minLength: 1 })),
    key: Type.Optional(Type.String()),
    config: Type.Optional(Settings),
    workspace_id: Type.Optional(Type.String()),
  },
  { additionalProperties: false },
);
const UpdateVirtualKey = Type.Object(
  {
    name: Type.Optional(Type.String({ minLength: 1, maxLength: 200 })),
    key: Type.Optional(Type.String()),
    config: Type.Optional(Settings),
  },
  { additionalProperties: false },
);
const VirtualKeyAnswer = Type.Object({
  id: Type.String(),
  object: Type.Literal('virtual_key'),
  name: Type.String(),
  slug: Type.String(),
  provider: Type.String(),
  integration_id: Nullable(Type.String()),
  workspace_id: Type.String(),
  status: Type.String(),
  config: Settings,
  created_at: IsoTime,
  updated_at: IsoTime,
});

/**
 * The provider a create names: `provider` (a registry name), or the integration `integration_id` names
 * (visible to the caller, and for an organisation integration shared with the target workspace); both
 * must agree when both are given.
 */
async function providerOf(
  ctx: ResourceContext,
  body: { provider?: string; integration_id?: string; key?: string },
): Promise<{ name: string; integrationId: string | null }> {
  if (body.integration_id === undefined) {
    if (body.provider === undefined)
      throw new GatewayError('invalid_request', "A provider needs 'provider' (a provider name) or 'integration_id'.", {
        param: 'provider',
      });
    if (!ctx.deps.targets.getProvider(body.provider))
      throw new GatewayError('invalid_request', `Unknown provider '${body.provider}'.`, { param: 'provider' });
    return { name: body.provider, integrationId: null };
  }
  const i = await getIntegration(ctx.db, ctx.scope, body.integration_id);
  if (!i) throw new GatewayError('not_found', `Unknown integration '${body.integration_id}'.`, { param: 'integration_id' });
  if (i.workspace_id === null ? !i.workspaces.includes(ctx.workspaceId) : i.workspace_id !== ctx.workspaceId) {
    throw new GatewayError(
      'invalid_request',
      `Integration '${body.integration_id}' is not shared with workspace '${ctx.workspaceId}' (PUT /v1/integrations/{id}/workspaces).`,
      { param: 'integration_id' },
    );
  }
  if (body.provider !== undefined && body.provider !== i.ai_provider_id)
    throw new GatewayError('invalid_request', `provider '${body.provider}' differs from the integration's '${i.ai_provider_id}'.`, {
      param: 'provider',
    });
  if (body.key !== undefined)
    throw new GatewayError('invalid_request', "A provider using an integration takes the integration's key: leave 'key' out.", {
      param: 'key',
    });
  return { name: i.ai_provider_id, integrationId: i.id };
}

/** The public view (never the secret). */
function present(v: VirtualKey) {
  return {
    id: v.id,
    object: 'virtual_key' as const,
    name: v.name,
    slug: v.slug,
    provider: v.provider,
    integration_id: v.integration_id ?? null,
    workspace_id: v.workspace_id,
    status: v.status,
    config: maskCredentialSettings(v.config),
    created_at: iso(v.created_at),
    updated_at: iso(v.updated_at),
  };
}

/**
 * `/v1/virtual-keys` (also `/v1/providers`): stored provider credentials, referenced by id or slug with
 * `x-gateway-virtual-key`, config `virtual_key`, or a provider slug `@<slug>`. The secret is write-only
 * and stored sealed by the gateway's secret box (AES-256-GCM, the row id as context).
 */
export const virtualKeysResource = defineResource({
  name: 'virtual_key',
  paths: ['/v1/virtual-keys', '/v1/providers'],
  tag: 'virtual keys',
  noun: { one: 'a virtual key', many: 'virtual keys' },
  permissions: { read: 'virtual_keys.read', write: 'virtual_keys.write' },
  runtimeSections: [VIRTUAL_KEYS_SECTION],
  schemas: { create: CreateVirtualKey, update: UpdateVirtualKey, listQuery: Type.Object({}), answer: VirtualKeyAnswer },
  removal: 'archive',
  repo: {
    async get(db, scope, idOrSlug) {
      const v = await getVirtualKey(db, scope, idOrSlug);
      return v?.status === 'active' ? v : undefined;
    },
    list: (db, scope, _query, page) => listVirtualKeys(db, scope, page),
    remove: (db, scope, v, now) => updateVirtualKey(db, scope, v.id, { status: 'archived' }, now),
  },
  idOf: (v) => v.id,
  workspaceOf: (v) => v.workspace_id,
  present,
  async create(ctx, body) {
    const provider = await providerOf(ctx, body);
    const id = uuid();
    const record: VirtualKey = {
      id,
      workspace_id: ctx.workspaceId,
      name: body.name,
      slug: body.slug ?? `${provider.name}-${uuid().slice(0, 8)}`,
      provider: provider.name,
      integration_id: provider.integrationId,
      // Sealed at rest with the row id as context; the runtime opens it when it loads the snapshot.
      secret: body.key ? ctx.deps.secrets.encrypt(body.key, id) : '',
      config: sealCredentialSettings(ctx.deps.secrets, `${id}:config`, body.config ?? {}),
      status: 'active',
      created_at: ctx.now,
      updated_at: ctx.now,
    };
    await insertVirtualKey(ctx.db, ctx.scope, record);
    return { record, details: { name: record.name, slug: record.slug, provider: record.provider, integration_id: record.integration_id } };
  },
  async update(ctx, v, body) {
    const config =
      body.config === undefined
        ? undefined
        : sealCredentialSettings(ctx.deps.secrets, `${v.id}:config`, keepUnchangedCredentials(v.config, body.config));
    await updateVirtualKey(
      ctx.db,
      ctx.scope,
      v.id,
      { name: body.name, secret: body.key === undefined ? undefined : body.key ? ctx.deps.secrets.encrypt(body.key, v.id) : '', config },
      ctx.now,
    );
    const record = (await getVirtualKey(ctx.db, ctx.scope, v.id)) ?? v;
    return { record, details: { changed: Object.keys(body) } };
  },
});
