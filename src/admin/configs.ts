import { Type, type Static } from 'typebox';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { GatewayError } from '../errors/gateway-error.js';
import { uuid } from '../lib/ids.js';
import { isUniqueViolation } from '../store/store.js';
import { archiveConfig, getConfig, insertConfig, listConfigs, listConfigVersions, updateConfig, type StoredConfig } from '../store/repos/configs.js';
import { validateConfig } from '../routing/validate-config.js';
import { compileConfig } from '../routing/compile-config.js';
import type { GatewayDeps } from '../server/deps.js';
import { workspaceScope, writeWorkspace } from '../server/middleware/auth/auth.js';
import { PageQuery, iso, pageOf } from './paging.js';

const Slug = Type.String({ pattern: '^[a-z0-9][a-z0-9_-]{0,127}$' });
const CreateBody = Type.Object(
  { name: Type.String({ minLength: 1, maxLength: 200 }), slug: Type.Optional(Slug), config: Type.Record(Type.String(), Type.Unknown()), workspace_id: Type.Optional(Type.String()) },
  { additionalProperties: false },
);
const UpdateBody = Type.Object({ name: Type.Optional(Type.String({ minLength: 1, maxLength: 200 })), config: Type.Optional(Type.Record(Type.String(), Type.Unknown())) }, { additionalProperties: false });
const IdParams = Type.Object({ id: Type.String() });
const ListQuery = Type.Object({ ...PageQuery, workspace_id: Type.Optional(Type.String()) }, { additionalProperties: false });

function present(c: StoredConfig): Record<string, unknown> {
  return { id: c.id, object: 'config', name: c.name, slug: c.slug, workspace_id: c.workspace_id, organisation_id: c.organisation_id, status: c.status, version: c.version, config: c.config, created_at: iso(c.created_at), updated_at: iso(c.updated_at) };
}

function slugify(name: string): string {
  const base = name.toLowerCase().replace(/[^a-z0-9]+/g, '-').replace(/^-+|-+$/g, '').slice(0, 100) || 'config';
  return `${base}-${uuid().slice(0, 8)}`;
}

/** Validates and compiles a config body (400 `invalid_config` with the JSON path). */
function checkConfig(deps: GatewayDeps, config: Record<string, unknown>): void {
  compileConfig(validateConfig(config, (name) => deps.targets.getProvider(name) !== undefined));
}

async function loadConfig(deps: GatewayDeps, request: FastifyRequest, idOrSlug: string): Promise<StoredConfig> {
  const c = await getConfig(deps.store, idOrSlug, workspaceScope(request, deps.runtime));
  if (!c || c.status !== 'active') throw new GatewayError('not_found', `Unknown config '${idOrSlug}'.`);
  return c;
}

/** `/v1/configs`: stored routing configs; every update is a new version; requests use them by id or slug. */
export function registerConfigRoutes(app: FastifyInstance, deps: GatewayDeps): void {
  const tags = ['configs'];
  app.post('/v1/configs', { config: { permission: 'configs.write' }, schema: { body: CreateBody, tags, summary: 'Store a config' } }, async (request, reply) => {
    const key = request.gw.key!;
    const body = request.body as Static<typeof CreateBody>;
    checkConfig(deps, body.config);
    const now = deps.clock.now();
    const record: StoredConfig = {
      id: uuid(),
      organisation_id: key.organisationId,
      workspace_id: writeWorkspace(request, deps.runtime, body.workspace_id),
      name: body.name,
      slug: body.slug ?? slugify(body.name),
      status: 'active',
      version: 1,
      config: body.config,
      created_at: now,
      updated_at: now,
    };
    try {
      await insertConfig(deps.store, record);
    } catch (err) {
      if (isUniqueViolation(err)) throw new GatewayError('conflict', `A config with slug '${record.slug}' already exists in this workspace.`, { param: 'slug' });
      throw err;
    }
    await deps.runtime.changed();
    return reply.code(201).send(present(record));
  });

  app.get('/v1/configs', { config: { permission: 'configs.read' }, schema: { querystring: ListQuery, tags, summary: 'List configs' } }, async (request) => {
    const q = request.query as Static<typeof ListQuery>;
    const { rows, total } = await listConfigs(deps.store, { workspaceIds: workspaceScope(request, deps.runtime, q.workspace_id), ...pageOf(q) });
    return { object: 'list', data: rows.map(present), total };
  });

  app.get('/v1/configs/:id', { config: { permission: 'configs.read' }, schema: { params: IdParams, tags, summary: 'Read a config (id or slug)' } }, async (request) => {
    return present(await loadConfig(deps, request, (request.params as { id: string }).id));
  });

  app.get('/v1/configs/:id/versions', { config: { permission: 'configs.read' }, schema: { params: IdParams, tags, summary: 'List versions of a config' } }, async (request) => {
    const c = await loadConfig(deps, request, (request.params as { id: string }).id);
    const versions = await listConfigVersions(deps.store, c.id);
    return { object: 'list', data: versions.map((v) => ({ version: v.version, config: v.config, created_at: iso(v.created_at) })), total: versions.length };
  });

  app.put('/v1/configs/:id', { config: { permission: 'configs.write' }, schema: { params: IdParams, body: UpdateBody, tags, summary: 'Update a config (new version)' } }, async (request) => {
    const c = await loadConfig(deps, request, (request.params as { id: string }).id);
    const body = request.body as Static<typeof UpdateBody>;
    if (body.config) checkConfig(deps, body.config);
    await updateConfig(deps.store, c.id, body, deps.clock.now());
    await deps.runtime.changed();
    return present((await getConfig(deps.store, c.id))!);
  });

  app.delete('/v1/configs/:id', { config: { permission: 'configs.write' }, schema: { params: IdParams, tags, summary: 'Delete (archive) a config' } }, async (request) => {
    const c = await loadConfig(deps, request, (request.params as { id: string }).id);
    await archiveConfig(deps.store, c.id, deps.clock.now());
    await deps.runtime.changed();
    return { id: c.id, object: 'config', deleted: true };
  });
}
