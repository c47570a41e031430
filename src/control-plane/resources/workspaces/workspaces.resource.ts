import { Type } from 'typebox';
import { GatewayError } from '../../../foundation/errors/gateway-error.js';
import { uuid } from '../../../foundation/lib/ids.js';
import { effectiveSettings } from '../../../kernel/settings.js';
import { API_KEYS_SECTION, WORKSPACES_SECTION } from '../../../runtime/core-sections.js';
import { SESSIONS_SECTION } from '../../../runtime/sessions-section.js';
import { getConfig } from '../../../infra/store/repos/configs.js';
import { getOrganisation, type Workspace, type WorkspaceDefaults } from '../../../infra/store/repos/organisations.js';
import { getWorkspace, insertWorkspaceRow, listScopedWorkspaces, saveWorkspace } from '../../../infra/store/repos/workspaces.js';
import { defineAction, defineResource, type ResourceContext } from '../../resource/define-resource.js';
import { iso } from '../../../identity/paging.js';
import { Slug, slugify } from '../../resource/slug.js';
import { requireOrganisationAdmin } from '../../../identity/authorize.js';
import { ApiKeyDefaults } from '../api-keys/api-key-schemas.js';
import { EffectiveSettingsAnswer, WorkspaceSettings } from '../organisation/settings-schema.js';
import {
  InlineUsageLimitAnswer,
  InlineUsageLimits,
  replaceInlineUsageLimits,
  withInlineUsageLimits,
  type InlineOwner,
  type InlineUsageLimitView,
} from '../usage-limit-policies/inline-usage-limits.js';
import { USAGE_LIMIT_SECTION } from '../../../features/limits/usage-limit-section.js';
import { StringEnum } from '../../../foundation/spec/string-enum.js';
import { Nullable } from '../../../foundation/spec/nullable.js';

const Metadata = Type.Record(Type.String(), Type.String());
const Description = Nullable(Type.String({ maxLength: 2000 }));
const CreateWorkspace = Type.Object(
  {
    name: Type.String({ minLength: 1, maxLength: 200 }),
    slug: Type.Optional(Slug),
    description: Type.Optional(Description),
    metadata: Type.Optional(Metadata),
    settings: Type.Optional(WorkspaceSettings),
    defaults: Type.Optional(Nullable(ApiKeyDefaults)),
    /** Budgets of the whole workspace: each entry is a usage-limit policy on `workspace_id = <this workspace>` (docs/usage-limits.md). */
    usage_limits: Type.Optional(InlineUsageLimits),
  },
  { additionalProperties: false },
);
const UpdateWorkspace = Type.Object(
  {
    name: Type.Optional(Type.String({ minLength: 1, maxLength: 200 })),
    description: Type.Optional(Description),
    metadata: Type.Optional(Metadata),
    settings: Type.Optional(WorkspaceSettings),
    defaults: Type.Optional(Nullable(ApiKeyDefaults)),
    usage_limits: Type.Optional(InlineUsageLimits),
    status: Type.Optional(Type.Literal('active')),
  },
  { additionalProperties: false },
);
const WorkspaceAnswer = Type.Object({
  id: Type.String(),
  object: Type.Literal('workspace'),
  name: Type.String(),
  slug: Type.String(),
  description: Nullable(Type.String()),
  status: StringEnum(['active', 'archived']),
  metadata: Type.Record(Type.String(), Type.Unknown()),
  settings: Type.Record(Type.String(), Type.Unknown()),
  defaults: Nullable(ApiKeyDefaults),
  /** The workspace's inline usage limits: the policies its `usage_limits` made. */
  usage_limits: Type.Array(InlineUsageLimitAnswer),
  created_at: Type.String(),
  last_updated_at: Type.String(),
});
const ListQuery = Type.Object({ status: Type.Optional(Type.String({ minLength: 1, maxLength: 100 })) });
const STATUSES = ['active', 'archived'] as const;

/** A workspace with its inline `usage_limits` attached. */
type WorkspaceRecord = Workspace & { usage_limits?: InlineUsageLimitView[] };

/** The workspace row without what was attached to it for answers. */
function row(w: WorkspaceRecord): Workspace {
  const { usage_limits: _limits, ...rest } = w;
  return rest;
}

const workspaceOwner = (w: Workspace): InlineOwner => ({ type: 'workspace', id: w.id, workspaceId: w.id });
/** Only this workspace (one just created is not in the request's scope yet). */
const onlyScope = (w: Workspace) => ({ organisationId: w.organisation_id, workspaceIds: [w.id], organisationWide: false });

function present(w: WorkspaceRecord) {
  return {
    id: w.id,
    object: 'workspace' as const,
    name: w.name,
    slug: w.slug,
    description: w.description,
    status: w.status,
    metadata: w.metadata,
    settings: w.settings,
    defaults: w.defaults,
    usage_limits: w.usage_limits ?? [],
    created_at: iso(w.created_at)!,
    last_updated_at: iso(w.updated_at)!,
  };
}

/** The statuses a list asks for (`status=active,archived`; default `active`); 400 naming `status` for another value. */
function statusesOf(query: { status?: string }): string[] {
  const wanted = (query.status ?? 'active').split(',').map((s) => s.trim());
  for (const s of wanted)
    if (!(STATUSES as readonly string[]).includes(s))
      throw new GatewayError('invalid_request', `querystring.status: '${s}' is not one of active, archived.`, { param: 'status' });
  return wanted;
}

/**
 * Checks a workspace's `defaults` and returns them as stored: the default config must be an active
 * stored config of this workspace (named by id or slug, stored by id); otherwise 404 naming
 * `defaults.config_id` (a new workspace has no configs yet).
 */
async function checkDefaults(
  ctx: ResourceContext,
  workspaceId: string | null,
  defaults: WorkspaceDefaults | null | undefined,
): Promise<WorkspaceDefaults | null> {
  if (!defaults) return null;
  const out: WorkspaceDefaults = { ...defaults };
  if (defaults.config_id !== undefined) {
    const config =
      workspaceId === null
        ? undefined
        : await getConfig(
            ctx.db,
            { organisationId: ctx.principal.organisationId, workspaceIds: [workspaceId], organisationWide: false },
            defaults.config_id,
          );
    if (config?.status !== 'active')
      throw new GatewayError('not_found', `defaults.config_id: no stored config '${defaults.config_id}' in this workspace.`, {
        param: 'defaults.config_id',
      });
    out.config_id = config.id;
  }
  return out;
}

const effectiveSettingsAction = defineAction<Workspace, never, typeof EffectiveSettingsAnswer>({
  verb: 'read_effective_settings',
  method: 'GET',
  suffix: '/effective-settings',
  permission: 'workspaces.read',
  write: false,
  summary: "A workspace's effective settings: each key's value and whether it comes from the workspace, the organisation or the default",
  answer: EffectiveSettingsAnswer,
  async run(ctx, w) {
    const organisation = await getOrganisation(ctx.db, w.organisation_id);
    return { answer: { settings: effectiveSettings(w.settings, organisation?.settings) } };
  },
});

/**
 * `/v1/workspaces`: create (organisation owners and admins), list (`status=active,archived`; archived
 * ones need an organisation owner or admin), read and update by id or slug, archive (`DELETE`; the
 * organisation's default workspace cannot be archived) and restore (`PUT {"status":"active"}`). An
 * archived workspace is read-only (a `PUT` other than the restore is 409) and its keys are refused.
 */
export const workspacesResource = defineResource({
  name: 'workspace',
  paths: ['/v1/workspaces'],
  tag: 'workspaces',
  noun: { one: 'a workspace', many: 'workspaces' },
  permissions: { read: 'workspaces.read', write: 'workspaces.write' },
  runtimeSections: [WORKSPACES_SECTION, API_KEYS_SECTION, SESSIONS_SECTION, USAGE_LIMIT_SECTION],
  schemas: { create: CreateWorkspace, update: UpdateWorkspace, listQuery: ListQuery, answer: WorkspaceAnswer },
  removal: 'archive',
  removeAnswer: 'record',
  archivedWorkspaceWrites: true,
  unique: { param: 'slug', message: 'A workspace with this slug already exists in this organisation.' },
  repo: {
    async get(db, scope, idOrSlug): Promise<WorkspaceRecord | undefined> {
      const w = await getWorkspace(db, scope, idOrSlug);
      return w && (await withInlineUsageLimits(db, scope, [w], workspaceOwner))[0];
    },
    async list(db, scope, query, page) {
      const { rows, total } = await listScopedWorkspaces(db, scope, statusesOf(query), page);
      return { rows: await withInlineUsageLimits(db, scope, rows, workspaceOwner), total };
    },
    async remove(db, scope, w, now) {
      const archived: Workspace = { ...row(w), status: 'archived', updated_at: now };
      await saveWorkspace(db, scope, archived);
      return { ...archived, usage_limits: (w as WorkspaceRecord).usage_limits };
    },
  },
  idOf: (w) => w.id,
  workspaceOf: (w) => w.id,
  present,
  beforeList(ctx, query) {
    if (statusesOf(query).includes('archived')) requireOrganisationAdmin(ctx.principal, 'Listing archived workspaces');
  },
  beforeRemove(ctx, w) {
    requireOrganisationAdmin(ctx.principal, 'Archiving a workspace');
    if (w.status === 'archived') throw new GatewayError('conflict', `Workspace '${w.slug}' is already archived.`, { param: 'id' });
    if (ctx.deps.runtime.current.defaultWorkspaceByOrganisation.get(w.organisation_id) === w.id) {
      throw new GatewayError('conflict', "The organisation's default workspace cannot be archived.", { param: 'id' });
    }
  },
  async create(ctx, body) {
    requireOrganisationAdmin(ctx.principal, 'Creating a workspace');
    const w: Workspace = {
      id: uuid(),
      organisation_id: ctx.principal.organisationId,
      name: body.name,
      slug: body.slug ?? slugify(body.name, 'workspace'),
      status: 'active',
      settings: body.settings ?? {},
      description: body.description ?? null,
      metadata: body.metadata ?? {},
      defaults: await checkDefaults(ctx, null, body.defaults),
      created_at: ctx.now,
      updated_at: ctx.now,
    };
    await insertWorkspaceRow(ctx.db, w);
    if (body.usage_limits !== undefined) await replaceInlineUsageLimits(ctx, workspaceOwner(w), body.usage_limits);
    const [record] = await withInlineUsageLimits(ctx.db, onlyScope(w), [w], workspaceOwner);
    return { record: record!, details: { name: w.name, slug: w.slug } };
  },
  async update(ctx, w, body) {
    const restoring = body.status === 'active' && w.status === 'archived';
    if (w.status === 'archived' && (!restoring || Object.keys(body).length > 1)) {
      throw new GatewayError('conflict', `Workspace '${w.slug}' is archived: it is read-only until restored with {"status":"active"}.`, {
        param: 'status',
      });
    }
    if (restoring) requireOrganisationAdmin(ctx.principal, 'Restoring a workspace');
    const next: Workspace = {
      ...row(w),
      name: body.name ?? w.name,
      description: body.description !== undefined ? body.description : w.description,
      metadata: body.metadata ?? w.metadata,
      settings: body.settings ?? w.settings,
      defaults: body.defaults !== undefined ? await checkDefaults(ctx, w.id, body.defaults) : w.defaults,
      status: 'active',
      updated_at: ctx.now,
    };
    await saveWorkspace(ctx.db, ctx.scope, next);
    if (body.usage_limits !== undefined) await replaceInlineUsageLimits(ctx, workspaceOwner(next), body.usage_limits);
    const [record] = await withInlineUsageLimits(ctx.db, onlyScope(next), [next], workspaceOwner);
    return { record: record!, details: { changed: Object.keys(body), ...(restoring ? { restored: true } : {}) } };
  },
  actions: [effectiveSettingsAction],
});
