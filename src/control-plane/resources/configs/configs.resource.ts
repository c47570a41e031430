import { CONFIGS_SECTION } from '../../../runtime/core-sections.js';
import { Type } from 'typebox';
import { uuid } from '../../../foundation/lib/ids.js';
import {
  archiveConfig,
  getConfig,
  insertConfig,
  listConfigs,
  listConfigVersions,
  updateConfig,
  type StoredConfig,
} from '../../../infra/store/repos/configs.js';
import { validateConfig } from '../../../routing/validate-config.js';
import { compileConfig } from '../../../routing/compile-config.js';
import type { GatewayDeps } from '../../../data-plane/pipeline/deps.js';
import { defineAction, defineResource } from '../../resource/define-resource.js';
import { IsoTime, iso } from '../../../identity/paging.js';
import { Slug, slugify } from '../../resource/slug.js';
import { explainConfig } from './explain-config.js';
import {
  keepMaskedConfigCredentials,
  leftoverHintPath,
  maskConfigCredentials,
  sealConfigCredentials,
} from '../../../foundation/lib/config-credentials.js';
import { GatewayError } from '../../../foundation/errors/gateway-error.js';
import { openStoredConfig } from './open-stored-config.js';
import { checkConfigReferences } from './check-config-references.js';

const ConfigBody = Type.Record(Type.String(), Type.Unknown());
const CreateConfig = Type.Object(
  {
    name: Type.String({ minLength: 1, maxLength: 200 }),
    slug: Type.Optional(Slug),
    config: ConfigBody,
    workspace_id: Type.Optional(Type.String()),
  },
  { additionalProperties: false },
);
const UpdateConfig = Type.Object(
  { name: Type.Optional(Type.String({ minLength: 1, maxLength: 200 })), config: Type.Optional(ConfigBody) },
  { additionalProperties: false },
);
const ConfigAnswer = Type.Object({
  id: Type.String(),
  object: Type.Literal('config'),
  name: Type.String(),
  slug: Type.String(),
  workspace_id: Type.String(),
  organisation_id: Type.String(),
  status: Type.String(),
  version: Type.Integer(),
  config: ConfigBody,
  created_at: IsoTime,
  updated_at: IsoTime,
});
const VersionsAnswer = Type.Object({
  object: Type.Literal('list'),
  data: Type.Array(Type.Object({ version: Type.Integer(), config: ConfigBody, created_at: IsoTime })),
  total: Type.Integer(),
});

/** The public view: credential members (`api_key` …) only as their hints, never the stored values. */
function present(c: StoredConfig) {
  return {
    id: c.id,
    object: 'config' as const,
    name: c.name,
    slug: c.slug,
    workspace_id: c.workspace_id,
    organisation_id: c.organisation_id,
    status: c.status,
    version: c.version,
    config: maskConfigCredentials(c.config),
    created_at: iso(c.created_at),
    updated_at: iso(c.updated_at),
  };
}

/**
 * Validates and compiles a config body (400 `invalid_config` with the JSON path), refuses a credential
 * member that is a masked hint standing for no stored credential (copied from an answer), and a target
 * naming a virtual key or provider slug the config's workspace cannot use.
 */
function checkConfig(deps: GatewayDeps, config: Record<string, unknown>, workspaceId: string): void {
  const hinted = leftoverHintPath(config);
  if (hinted)
    throw new GatewayError(
      'invalid_config',
      `Invalid config: ${hinted} is a masked hint that stands for no stored credential of this config; send the credential itself.`,
      { param: hinted },
    );
  const compiled = compileConfig(validateConfig(config, (name) => deps.targets.getProvider(name) !== undefined));
  checkConfigReferences(compiled.root, workspaceId, deps.targets);
}

const versions = defineAction<StoredConfig, ReturnType<typeof Type.Object>, typeof VersionsAnswer>({
  verb: 'versions',
  method: 'GET',
  suffix: '/versions',
  permission: 'configs.read',
  write: false,
  summary: 'List versions of a config',
  answer: VersionsAnswer,
  async run(ctx, c) {
    const rows = await listConfigVersions(ctx.db, ctx.scope, c.id);
    return {
      answer: {
        object: 'list' as const,
        data: rows.map((v) => ({ version: v.version, config: maskConfigCredentials(v.config), created_at: iso(v.created_at) })),
        total: rows.length,
      },
    };
  },
});

/**
 * `/v1/configs`: stored routing configs; every update is a new version; requests use them by id or slug.
 * Credential members are write-only: stored sealed by the gateway's secret box (every version), answered
 * as hints, and kept when an answer is saved back with the hints. `POST /v1/configs/explain` explains
 * how a config (inline or stored) routes a request.
 */
export const configsResource = defineResource({
  name: 'config',
  paths: ['/v1/configs'],
  tag: 'configs',
  noun: { one: 'a config', many: 'configs' },
  permissions: { read: 'configs.read', write: 'configs.write' },
  runtimeSections: [CONFIGS_SECTION],
  schemas: { create: CreateConfig, update: UpdateConfig, listQuery: Type.Object({}), answer: ConfigAnswer },
  removal: 'archive',
  repo: {
    async get(db, scope, idOrSlug) {
      const c = await getConfig(db, scope, idOrSlug);
      return c?.status === 'active' ? c : undefined;
    },
    list: (db, scope, _query, page) => listConfigs(db, scope, page),
    remove: (db, scope, c, now) => archiveConfig(db, scope, c.id, now),
  },
  idOf: (c) => c.id,
  workspaceOf: (c) => c.workspace_id,
  present,
  async create(ctx, body) {
    checkConfig(ctx.deps, body.config, ctx.workspaceId);
    const id = uuid();
    const record: StoredConfig = {
      id,
      organisation_id: ctx.principal.organisationId,
      workspace_id: ctx.workspaceId,
      name: body.name,
      slug: body.slug ?? slugify(body.name, 'config'),
      status: 'active',
      version: 1,
      config: sealConfigCredentials(ctx.deps.secrets, id, body.config),
      created_at: ctx.now,
      updated_at: ctx.now,
    };
    await insertConfig(ctx.db, ctx.scope, record);
    return { record, details: { name: record.name, slug: record.slug } };
  },
  async update(ctx, c, body) {
    let config: Record<string, unknown> | undefined;
    if (body.config) {
      // Hints sent back (an answer saved unchanged) stand for the stored credentials at their place.
      const next = keepMaskedConfigCredentials(openStoredConfig(ctx.deps.secrets, c, 'config'), body.config);
      checkConfig(ctx.deps, next, c.workspace_id);
      config = sealConfigCredentials(ctx.deps.secrets, c.id, next);
    }
    const version = await updateConfig(ctx.db, ctx.scope, c.id, { name: body.name, config }, ctx.now);
    const record = (await getConfig(ctx.db, ctx.scope, c.id)) ?? c;
    return { record, details: { changed: Object.keys(body), version } };
  },
  actions: [versions],
  collectionActions: [explainConfig],
});
