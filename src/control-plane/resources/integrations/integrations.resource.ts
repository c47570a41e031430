import { Type } from 'typebox';
import { VIRTUAL_KEYS_SECTION } from '../../../runtime/core-sections.js';
import { GatewayError } from '../../../foundation/errors/gateway-error.js';
import { uuid } from '../../../foundation/lib/ids.js';
import {
  getIntegration,
  insertIntegration,
  listIntegrations,
  updateIntegration,
  type Integration,
} from '../../../infra/store/repos/integrations.js';
import { getVirtualKey, insertVirtualKey } from '../../../infra/store/repos/virtual-keys.js';
import { defineResource, type ResourceContext } from '../../resource/define-resource.js';
import { IsoTime, iso } from '../../../identity/paging.js';
import { Slug } from '../../resource/slug.js';
import {
  checkConfigurations,
  checkCustomHost,
  checkProvider,
  checkSecretMappings,
  credentialHint,
  sealConfigurations,
} from './integration-input.js';
import { integrationModelsActions, integrationWorkspacesAction } from './integration-actions.js';
import { checkMappedReferences } from './check-secret-mappings.js';
import { StringEnum } from '../../../foundation/spec/string-enum.js';
import { Nullable } from '../../../foundation/spec/nullable.js';

const Settings = Type.Record(Type.String(), Type.Unknown());
const SecretMappingSchema = Type.Object(
  {
    target_field: Type.String({ minLength: 1 }),
    secret_reference_id: Type.String({ minLength: 1 }),
    secret_key: Type.Optional(Type.String({ minLength: 1 })),
    value_format: Type.Optional(StringEnum(['string', 'json'])),
  },
  { additionalProperties: false },
);
const PricingAdjustments = Type.Object({ multiplier: Type.Number({ minimum: 0 }) }, { additionalProperties: false });
const CreateIntegration = Type.Object(
  {
    name: Type.String({ minLength: 1, maxLength: 200 }),
    slug: Type.Optional(Slug),
    ai_provider_id: Type.String({ minLength: 1 }),
    key: Type.Optional(Type.String()),
    configurations: Type.Optional(Settings),
    workspace_id: Type.Optional(Type.String()),
    create_default_provider: Type.Optional(Type.Boolean()),
    default_provider_slug: Type.Optional(Slug),
    secret_mappings: Type.Optional(Type.Array(SecretMappingSchema, { maxItems: 50 })),
    pricing_adjustments: Type.Optional(PricingAdjustments),
  },
  { additionalProperties: false },
);
const UpdateIntegration = Type.Object(
  {
    name: Type.Optional(Type.String({ minLength: 1, maxLength: 200 })),
    key: Type.Optional(Type.String()),
    configurations: Type.Optional(Settings),
    secret_mappings: Type.Optional(Type.Array(SecretMappingSchema, { maxItems: 50 })),
    pricing_adjustments: Type.Optional(Nullable(PricingAdjustments)),
  },
  { additionalProperties: false },
);
const IntegrationAnswer = Type.Object({
  id: Type.String(),
  object: Type.Literal('integration'),
  slug: Type.String(),
  name: Type.String(),
  ai_provider_id: Type.String(),
  key_hint: Nullable(Type.String()),
  configurations: Settings,
  workspace_id: Nullable(Type.String()),
  secret_mappings: Type.Array(SecretMappingSchema),
  pricing_adjustments: Nullable(PricingAdjustments),
  status: Type.String(),
  created_at: IsoTime,
  last_updated_at: IsoTime,
});

/** The public view: the key and credential-like settings only by their hints. */
function present(i: Integration) {
  return {
    id: i.id,
    object: 'integration' as const,
    slug: i.slug,
    name: i.name,
    ai_provider_id: i.ai_provider_id,
    key_hint: i.key_hint,
    configurations: i.configurations,
    workspace_id: i.workspace_id,
    secret_mappings: i.secret_mappings,
    pricing_adjustments: i.pricing_adjustments,
    status: i.status,
    created_at: iso(i.created_at),
    last_updated_at: iso(i.updated_at),
  };
}

/** Organisation-level integrations are written by organisation principals only (spec: org owner/admin). */
export function assertMayWrite(ctx: ResourceContext, i: Pick<Integration, 'workspace_id'>): void {
  if (i.workspace_id === null && !ctx.scope.organisationWide) {
    throw new GatewayError(
      'forbidden',
      'Organisation-level integrations are managed by organisation owners and admins (pass workspace_id for a workspace integration).',
      { param: 'workspace_id' },
    );
  }
}

/** Validates configurations (provider settings, custom host guard) and mappings of a write. */
async function checkSettings(
  ctx: ResourceContext,
  provider: string,
  body: { configurations?: Record<string, unknown>; secret_mappings?: Integration['secret_mappings'] },
): Promise<void> {
  if (body.configurations) {
    checkConfigurations(provider, body.configurations);
    if (body.configurations.custom_host !== undefined)
      await checkCustomHost(ctx.deps.http.outbound, body.configurations.custom_host, 'configurations.custom_host');
  }
  if (body.secret_mappings) {
    checkSecretMappings(provider, body.secret_mappings);
    body.secret_mappings = await checkMappedReferences(ctx, body.secret_mappings);
  }
}

/**
 * `/v1/integrations`: provider credentials held once, at organisation level (shared with workspaces by
 * `PUT /{id}/workspaces`) or in one workspace (`workspace_id`). The key is write-only and sealed at rest;
 * `configurations` hold the provider's own settings; `create_default_provider` also creates a provider
 * (`/v1/providers`) using it. Providers using an integration reach the data plane through the
 * virtual-keys section, which is reloaded on every integration write.
 */
export const integrationsResource = defineResource({
  name: 'integration',
  paths: ['/v1/integrations'],
  tag: 'integrations',
  noun: { one: 'an integration', many: 'integrations' },
  permissions: { read: 'integrations.read', write: 'integrations.write' },
  runtimeSections: [VIRTUAL_KEYS_SECTION],
  schemas: { create: CreateIntegration, update: UpdateIntegration, listQuery: Type.Object({}), answer: IntegrationAnswer },
  removal: 'archive',
  unique: { param: 'slug', message: 'An integration with this slug already exists in this organisation.' },
  repo: {
    get: getIntegration,
    list: (db, scope, _query, page) => listIntegrations(db, scope, page),
    async remove(db, scope, i, now) {
      const after = { ...i, status: 'archived' as const };
      await updateIntegration(db, scope, after, now);
      return after;
    },
  },
  idOf: (i) => i.id,
  workspaceOf: (i) => i.workspace_id,
  present,
  beforeRemove: (ctx, i) => assertMayWrite(ctx, i),
  async create(ctx, body) {
    checkProvider(body.ai_provider_id);
    const workspaceId = body.workspace_id === undefined ? null : ctx.workspaceId;
    assertMayWrite(ctx, { workspace_id: workspaceId });
    await checkSettings(ctx, body.ai_provider_id, body);
    const id = uuid();
    const slug = body.slug ?? `${body.ai_provider_id}-${uuid().slice(0, 8)}`;
    const { shown, sealed } = sealConfigurations(ctx.deps.secrets, id, body.configurations ?? {});
    const withProvider = body.create_default_provider !== false;
    const providerWorkspace = workspaceId ?? ctx.workspaceId;
    const record: Integration = {
      id,
      organisation_id: ctx.scope.organisationId,
      workspace_id: workspaceId,
      name: body.name,
      slug,
      ai_provider_id: body.ai_provider_id,
      key_ciphertext: body.key ? ctx.deps.secrets.encrypt(body.key, id) : '',
      key_hint: body.key ? credentialHint(body.key) : null,
      configurations: shown,
      secret_configurations: sealed,
      secret_mappings: body.secret_mappings ?? [],
      pricing_adjustments: body.pricing_adjustments ?? null,
      allow_all_models: true,
      models: null,
      // The workspace of the default provider may use an organisation integration from the start.
      workspaces: workspaceId === null && withProvider ? [providerWorkspace] : [],
      status: 'active',
      created_at: ctx.now,
      updated_at: ctx.now,
    };
    await insertIntegration(ctx.db, ctx.scope, record);
    let provider: { id: string; slug: string } | undefined;
    if (withProvider) {
      const providerSlug = body.default_provider_slug ?? slug;
      const param = body.default_provider_slug ? 'default_provider_slug' : 'slug';
      // A clash is 409 and, the write being one transaction, nothing is created.
      if (
        await getVirtualKey(
          ctx.db,
          { organisationId: ctx.scope.organisationId, workspaceIds: [providerWorkspace], organisationWide: false },
          providerSlug,
        )
      ) {
        throw new GatewayError('conflict', `A provider with slug '${providerSlug}' already exists in workspace '${providerWorkspace}'.`, {
          param,
        });
      }
      provider = { id: uuid(), slug: providerSlug };
      await insertVirtualKey(ctx.db, ctx.scope, {
        id: provider.id,
        workspace_id: providerWorkspace,
        name: body.name,
        slug: providerSlug,
        provider: body.ai_provider_id,
        secret: '',
        config: {},
        status: 'active',
        created_at: ctx.now,
        updated_at: ctx.now,
        integration_id: id,
      });
    }
    return {
      record,
      details: {
        name: record.name,
        slug,
        ai_provider_id: record.ai_provider_id,
        workspace_id: workspaceId,
        ...(provider ? { default_provider_id: provider.id, default_provider_slug: provider.slug } : {}),
      },
    };
  },
  async update(ctx, i, body) {
    assertMayWrite(ctx, i);
    await checkSettings(ctx, i.ai_provider_id, body);
    const next: Integration = { ...i };
    if (body.name !== undefined) next.name = body.name;
    if (body.key !== undefined) {
      next.key_ciphertext = body.key ? ctx.deps.secrets.encrypt(body.key, i.id) : '';
      next.key_hint = body.key ? credentialHint(body.key) : null;
    }
    if (body.configurations !== undefined) {
      const { shown, sealed } = sealConfigurations(ctx.deps.secrets, i.id, body.configurations);
      next.configurations = shown;
      next.secret_configurations = sealed;
    }
    if (body.secret_mappings !== undefined) next.secret_mappings = body.secret_mappings;
    if (body.pricing_adjustments !== undefined) next.pricing_adjustments = body.pricing_adjustments;
    await updateIntegration(ctx.db, ctx.scope, next, ctx.now);
    return { record: { ...next, updated_at: ctx.now }, details: { changed: Object.keys(body) } };
  },
  actions: [...integrationModelsActions, integrationWorkspacesAction],
});
