import { Type, type Static } from 'typebox';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { GatewayError } from '../errors/gateway-error.js';
import { uuid } from '../lib/ids.js';
import { isUniqueViolation } from '../store/store.js';
import { getVirtualKey, insertVirtualKey, listVirtualKeys, updateVirtualKey, type VirtualKey } from '../store/repos/virtual-keys.js';
import type { GatewayDeps } from '../server/deps.js';
import { workspaceScope, writeWorkspace } from '../server/middleware/auth/auth.js';
import { PageQuery, iso, pageOf } from './paging.js';

const Slug = Type.String({ pattern: '^[a-z0-9][a-z0-9_-]{0,127}$' });
const CreateBody = Type.Object(
  {
    name: Type.String({ minLength: 1, maxLength: 200 }),
    slug: Type.Optional(Slug),
    provider: Type.String({ minLength: 1 }),
    key: Type.Optional(Type.String()),
    config: Type.Optional(Type.Record(Type.String(), Type.Unknown())),
    workspace_id: Type.Optional(Type.String()),
  },
  { additionalProperties: false },
);
const UpdateBody = Type.Object({ name: Type.Optional(Type.String({ minLength: 1, maxLength: 200 })), key: Type.Optional(Type.String()), config: Type.Optional(Type.Record(Type.String(), Type.Unknown())) }, { additionalProperties: false });
const IdParams = Type.Object({ id: Type.String() });
const ListQuery = Type.Object({ ...PageQuery, workspace_id: Type.Optional(Type.String()) }, { additionalProperties: false });

/** The public view (never the secret). */
function present(v: VirtualKey): Record<string, unknown> {
  return { id: v.id, object: 'virtual_key', name: v.name, slug: v.slug, provider: v.provider, workspace_id: v.workspace_id, status: v.status, config: v.config, created_at: iso(v.created_at), updated_at: iso(v.updated_at) };
}

async function load(deps: GatewayDeps, request: FastifyRequest, idOrSlug: string): Promise<VirtualKey> {
  const v = await getVirtualKey(deps.store, idOrSlug, workspaceScope(request, deps.runtime));
  if (!v || v.status !== 'active') throw new GatewayError('not_found', `Unknown virtual key '${idOrSlug}'.`);
  return v;
}

/**
 * `/v1/virtual-keys` (also `/v1/providers`): stored provider credentials, referenced by id or slug with
 * `x-gateway-virtual-key`, config `virtual_key`, or a provider slug `@<slug>`.
 */
export function registerVirtualKeyRoutes(app: FastifyInstance, deps: GatewayDeps): void {
  for (const base of ['/v1/virtual-keys', '/v1/providers']) {
    const tags = ['virtual keys'];
    app.post(base, { config: { permission: 'virtual_keys.write' }, schema: { body: CreateBody, tags, summary: 'Store a provider credential' } }, async (request, reply) => {
      const body = request.body as Static<typeof CreateBody>;
      if (!deps.targets.getProvider(body.provider)) throw new GatewayError('invalid_request', `Unknown provider '${body.provider}'.`, { param: 'provider' });
      const now = deps.clock.now();
      const record: VirtualKey = {
        id: uuid(),
        workspace_id: writeWorkspace(request, deps.runtime, body.workspace_id),
        name: body.name,
        slug: body.slug ?? `${body.provider}-${uuid().slice(0, 8)}`,
        provider: body.provider,
        secret: body.key ?? '',
        config: body.config ?? {},
        status: 'active',
        created_at: now,
        updated_at: now,
      };
      try {
        await insertVirtualKey(deps.store, record);
      } catch (err) {
        if (isUniqueViolation(err)) throw new GatewayError('conflict', `A virtual key with slug '${record.slug}' already exists in this workspace.`, { param: 'slug' });
        throw err;
      }
      await deps.runtime.changed();
      return reply.code(201).send(present(record));
    });
    app.get(base, { config: { permission: 'virtual_keys.read' }, schema: { querystring: ListQuery, tags, summary: 'List provider credentials' } }, async (request) => {
      const q = request.query as Static<typeof ListQuery>;
      const { rows, total } = await listVirtualKeys(deps.store, { workspaceIds: workspaceScope(request, deps.runtime, q.workspace_id), ...pageOf(q) });
      return { object: 'list', data: rows.map(present), total };
    });
    app.get(`${base}/:id`, { config: { permission: 'virtual_keys.read' }, schema: { params: IdParams, tags, summary: 'Read a provider credential' } }, async (request) => {
      return present(await load(deps, request, (request.params as { id: string }).id));
    });
    app.put(`${base}/:id`, { config: { permission: 'virtual_keys.write' }, schema: { params: IdParams, body: UpdateBody, tags, summary: 'Update a provider credential' } }, async (request) => {
      const v = await load(deps, request, (request.params as { id: string }).id);
      const body = request.body as Static<typeof UpdateBody>;
      await updateVirtualKey(deps.store, v.id, { name: body.name, secret: body.key, config: body.config }, deps.clock.now());
      await deps.runtime.changed();
      return present((await getVirtualKey(deps.store, v.id))!);
    });
    app.delete(`${base}/:id`, { config: { permission: 'virtual_keys.write' }, schema: { params: IdParams, tags, summary: 'Delete (archive) a provider credential' } }, async (request) => {
      const v = await load(deps, request, (request.params as { id: string }).id);
      await updateVirtualKey(deps.store, v.id, { status: 'archived' }, deps.clock.now());
      await deps.runtime.changed();
      return { id: v.id, object: 'virtual_key', deleted: true };
    });
  }
}
