import { Type, type Static } from 'typebox';
import type { FastifyInstance } from 'fastify';
import { GatewayError } from '../errors/gateway-error.js';
import { uuid } from '../lib/ids.js';
import { PageQuery, pageOf } from '../admin/paging.js';
import {
  addPromptVersion,
  deletePrompt,
  getPrompt,
  getPromptVersion,
  insertPrompt,
  listPrompts,
  listPromptVersions,
  publishPromptVersion,
  updatePrompt,
  type StoredPrompt,
  type VersionFields,
} from '../store/repos/prompts.js';
import type { GatewayDeps } from '../server/deps.js';
import { workspaceScope, writeWorkspace } from '../server/middleware/auth/auth.js';
import { checkPartialText } from './compile-template.js';
import { MakeDefaultBody, PartialParams, Slug, insertUnique, loadForWrite, loadSelected, present, presentVersion, slugify } from './admin-support.js';

const CreateBody = Type.Object(
  {
    name: Type.String({ minLength: 1, maxLength: 200 }),
    slug: Type.Optional(Slug),
    workspace_id: Type.Optional(Type.String()),
    string: Type.String({ minLength: 1, description: 'The partial: Mustache text inserted where a template says {{> slug}}.' }),
    version_description: Type.Optional(Type.String()),
  },
  { additionalProperties: false },
);
const UpdateBody = Type.Object(
  { name: Type.Optional(Type.String({ minLength: 1, maxLength: 200 })), string: Type.Optional(Type.String({ minLength: 1 })), version_description: Type.Optional(Type.String()) },
  { additionalProperties: false },
);
const ListQuery = Type.Object({ ...PageQuery, workspace_id: Type.Optional(Type.String()) }, { additionalProperties: false });
const PATH = '/v1/prompts/partials';

const paramOf = (p: unknown) => (p as { partialId: string }).partialId;

/**
 * `/v1/prompts/partials`: versioned template fragments. A template includes one with `{{> slug}}`
 * (its published version), `{{> slug@latest}}` or `{{> slug@N}}`.
 */
export function registerPartialAdminRoutes(app: FastifyInstance, deps: GatewayDeps): void {
  const tags = ['prompts'];

  app.post(PATH, { config: { permission: 'prompts.write' }, schema: { body: CreateBody, tags, summary: 'Create a prompt partial (version 1, published)' } }, async (request, reply) => {
    const key = request.gw.key!;
    const body = request.body as Static<typeof CreateBody>;
    checkPartialText(body.string);
    const now = deps.clock.now();
    const record: StoredPrompt = {
      id: uuid(),
      organisation_id: key.organisationId,
      workspace_id: writeWorkspace(request, deps.runtime, body.workspace_id),
      kind: 'partial',
      name: body.name,
      slug: body.slug ?? slugify(body.name, false),
      published_version: 1,
      latest_version: 1,
      virtual_key: null,
      provider: null,
      created_at: now,
      updated_at: now,
    };
    const first: VersionFields = { template: body.string, parameters: {}, model: null, metadata: {}, description: body.version_description ?? null };
    await insertUnique('partial', record.slug, () => insertPrompt(deps.store, record, first));
    await deps.runtime.changed();
    return reply.code(201).send(present(record, { ...first, version: 1, created_at: now }));
  });

  app.get(PATH, { config: { permission: 'prompts.read' }, schema: { querystring: ListQuery, tags, summary: 'List prompt partials (published versions)' } }, async (request) => {
    const q = request.query as Static<typeof ListQuery>;
    const { rows, total } = await listPrompts(deps.store, { kind: 'partial', workspaceIds: workspaceScope(request, deps.runtime, q.workspace_id), ...pageOf(q) });
    return { object: 'list', data: rows.map((r) => present(r, r.published)), total };
  });

  app.get(`${PATH}/:partialId`, { config: { permission: 'prompts.read' }, schema: { params: PartialParams, tags, summary: 'Read a prompt partial: id or slug, optionally @latest or @<version>' } }, async (request) => {
    const { prompt, version } = await loadSelected(deps, request, 'partial', paramOf(request.params));
    return present(prompt, version);
  });

  app.get(`${PATH}/:partialId/versions`, { config: { permission: 'prompts.read' }, schema: { params: PartialParams, tags, summary: 'List the versions of a prompt partial' } }, async (request) => {
    const partial = await loadForWrite(deps, request, 'partial', paramOf(request.params));
    const versions = await listPromptVersions(deps.store, partial.id);
    return { object: 'list', data: versions.map((v) => presentVersion(partial, v)), total: versions.length };
  });

  app.put(`${PATH}/:partialId`, { config: { permission: 'prompts.write' }, schema: { params: PartialParams, body: UpdateBody, tags, summary: 'Update a prompt partial: a new string is a new version' } }, async (request) => {
    const partial = await loadForWrite(deps, request, 'partial', paramOf(request.params));
    const body = request.body as Static<typeof UpdateBody>;
    const patch = body.name !== undefined ? { name: body.name } : {};
    const now = deps.clock.now();
    let number = partial.latest_version;
    if (body.string !== undefined) {
      checkPartialText(body.string);
      number = await addPromptVersion(deps.store, partial.id, { template: body.string, parameters: {}, model: null, metadata: {}, description: body.version_description ?? null }, patch, now);
    } else {
      await updatePrompt(deps.store, partial.id, patch, now);
    }
    await deps.runtime.changed();
    const updated = (await getPrompt(deps.store, 'partial', partial.id, [partial.workspace_id]))!;
    return present(updated, (await getPromptVersion(deps.store, partial.id, number))!);
  });

  app.put(`${PATH}/:partialId/makeDefault`, { config: { permission: 'prompts.write' }, schema: { params: PartialParams, body: MakeDefaultBody, tags, summary: 'Publish a version of a prompt partial' } }, async (request) => {
    const partial = await loadForWrite(deps, request, 'partial', paramOf(request.params));
    const { version } = request.body as Static<typeof MakeDefaultBody>;
    if (!(await publishPromptVersion(deps.store, partial.id, version, deps.clock.now()))) {
      throw new GatewayError('not_found', `The prompt partial '${partial.slug}' has no version ${version}.`, { param: 'version' });
    }
    await deps.runtime.changed();
    const updated = (await getPrompt(deps.store, 'partial', partial.id, [partial.workspace_id]))!;
    return present(updated, (await getPromptVersion(deps.store, partial.id, version))!);
  });

  app.delete(`${PATH}/:partialId`, { config: { permission: 'prompts.write' }, schema: { params: PartialParams, tags, summary: 'Delete a prompt partial and every version' } }, async (request) => {
    const partial = await loadForWrite(deps, request, 'partial', paramOf(request.params));
    await deletePrompt(deps.store, partial.id);
    await deps.runtime.changed();
    return { id: partial.id, object: 'prompt_partial', deleted: true };
  });
}
