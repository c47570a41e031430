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
  type PromptPatch,
  type StoredPrompt,
  type VersionFields,
} from '../store/repos/prompts.js';
import type { GatewayDeps } from '../server/deps.js';
import { workspaceScope, writeWorkspace } from '../server/middleware/auth/auth.js';
import { templateMessages } from './compile-template.js';
import { SavedParameters, checkParameterKeys } from './hyperparameters.js';
import { PromptParams, MakeDefaultBody, Slug, insertUnique, loadForWrite, loadSelected, present, presentVersion, slugify } from './admin-support.js';

const Metadata = Type.Record(Type.String(), Type.Unknown());
const Credential = {
  virtual_key: Type.Optional(Type.Union([Type.String({ minLength: 1 }), Type.Null()], { description: 'Id or slug of the virtual key the prompt runs with when a request names no provider.' })),
  provider: Type.Optional(Type.Union([Type.String({ minLength: 1 }), Type.Null()], { description: 'Provider slug `@<slug>` the prompt runs with when a request names no provider.' })),
};
const CreateBody = Type.Object(
  {
    name: Type.String({ minLength: 1, maxLength: 200 }),
    slug: Type.Optional(Slug),
    workspace_id: Type.Optional(Type.String()),
    string: Type.String({ minLength: 1, description: 'The template: a JSON array of chat messages, or plain text (one user message). Mustache.' }),
    parameters: Type.Optional(SavedParameters),
    model: Type.Optional(Type.String({ minLength: 1 })),
    metadata: Type.Optional(Metadata),
    version_description: Type.Optional(Type.String()),
    ...Credential,
  },
  { additionalProperties: false },
);
const UpdateBody = Type.Object(
  {
    name: Type.Optional(Type.String({ minLength: 1, maxLength: 200 })),
    string: Type.Optional(Type.String({ minLength: 1 })),
    parameters: Type.Optional(SavedParameters),
    model: Type.Optional(Type.Union([Type.String({ minLength: 1 }), Type.Null()])),
    metadata: Type.Optional(Metadata),
    version_description: Type.Optional(Type.String()),
    patch: Type.Optional(Type.Boolean({ description: 'Back-fill `string`, `parameters`, `metadata` and `model` the body lacks from the latest version.' })),
    ...Credential,
  },
  { additionalProperties: false },
);
const ListQuery = Type.Object({ ...PageQuery, workspace_id: Type.Optional(Type.String()) }, { additionalProperties: false });

/** Checks the saved credential against the workspace's virtual keys; returns the prompt-level fields to store. */
function credentialPatch(deps: GatewayDeps, workspaceId: string, body: { virtual_key?: string | null; provider?: string | null }): PromptPatch {
  if (body.virtual_key && body.provider) throw new GatewayError('invalid_request', 'Give either virtual_key or provider, not both.', { param: 'provider' });
  const known = (ref: string) => deps.runtime.current.virtualKeys.has(`${workspaceId}:${ref}`);
  if (body.virtual_key) {
    if (!known(body.virtual_key)) throw new GatewayError('invalid_request', `Unknown virtual key '${body.virtual_key}' in the prompt's workspace.`, { param: 'virtual_key' });
    return { virtual_key: body.virtual_key, provider: null };
  }
  if (body.provider) {
    const provider = body.provider.startsWith('@') ? body.provider : `@${body.provider}`;
    if (!known(provider.slice(1))) throw new GatewayError('invalid_request', `Unknown provider slug '${provider}' in the prompt's workspace.`, { param: 'provider' });
    return { provider, virtual_key: null };
  }
  const out: PromptPatch = {};
  if (body.virtual_key === null) out.virtual_key = null;
  if (body.provider === null) out.provider = null;
  return out;
}

function checkVersionBody(body: { string?: string; parameters?: Record<string, unknown> }): void {
  if (body.string !== undefined) templateMessages(body.string);
  if (body.parameters) checkParameterKeys(body.parameters, 'parameters');
}

/** `/v1/prompts`: versioned prompt templates (create, read with version selection, list, versions, update, publish, delete). */
export function registerPromptAdminRoutes(app: FastifyInstance, deps: GatewayDeps): void {
  const tags = ['prompts'];

  app.post('/v1/prompts', { config: { permission: 'prompts.write' }, schema: { body: CreateBody, tags, summary: 'Create a prompt template (version 1, published)' } }, async (request, reply) => {
    const key = request.gw.key!;
    const body = request.body as Static<typeof CreateBody>;
    checkVersionBody(body);
    const workspaceId = writeWorkspace(request, deps.runtime, body.workspace_id);
    if (body.slug === 'partials') throw new GatewayError('invalid_request', "The slug 'partials' is reserved.", { param: 'slug' });
    const now = deps.clock.now();
    const record: StoredPrompt = {
      id: uuid(),
      organisation_id: key.organisationId,
      workspace_id: workspaceId,
      kind: 'prompt',
      name: body.name,
      slug: body.slug ?? slugify(body.name, true),
      published_version: 1,
      latest_version: 1,
      virtual_key: null,
      provider: null,
      created_at: now,
      updated_at: now,
      ...credentialPatch(deps, workspaceId, body),
    };
    const first: VersionFields = { template: body.string, parameters: body.parameters ?? {}, model: body.model ?? null, metadata: body.metadata ?? {}, description: body.version_description ?? null };
    await insertUnique('prompt', record.slug, () => insertPrompt(deps.store, record, first));
    await deps.runtime.changed();
    return reply.code(201).send(present(record, { ...first, version: 1, created_at: now }));
  });

  app.get('/v1/prompts', { config: { permission: 'prompts.read' }, schema: { querystring: ListQuery, tags, summary: 'List prompts (published versions)' } }, async (request) => {
    const q = request.query as Static<typeof ListQuery>;
    const { rows, total } = await listPrompts(deps.store, { kind: 'prompt', workspaceIds: workspaceScope(request, deps.runtime, q.workspace_id), ...pageOf(q) });
    return { object: 'list', data: rows.map((r) => present(r, r.published)), total };
  });

  app.get('/v1/prompts/:promptId', { config: { permission: 'prompts.read' }, schema: { params: PromptParams, tags, summary: 'Read a prompt: id or slug, optionally @latest or @<version>' } }, async (request) => {
    const { prompt, version } = await loadSelected(deps, request, 'prompt', (request.params as { promptId: string }).promptId);
    return present(prompt, version);
  });

  app.get('/v1/prompts/:promptId/versions', { config: { permission: 'prompts.read' }, schema: { params: PromptParams, tags, summary: 'List the versions of a prompt, newest first' } }, async (request) => {
    const prompt = await loadForWrite(deps, request, 'prompt', (request.params as { promptId: string }).promptId);
    const versions = await listPromptVersions(deps.store, prompt.id);
    return { object: 'list', data: versions.map((v) => presentVersion(prompt, v)), total: versions.length };
  });

  app.put('/v1/prompts/:promptId', { config: { permission: 'prompts.write' }, schema: { params: PromptParams, body: UpdateBody, tags, summary: 'Update a prompt: a new version (patch: true back-fills from the latest)' } }, async (request) => {
    const prompt = await loadForWrite(deps, request, 'prompt', (request.params as { promptId: string }).promptId);
    const body = request.body as Static<typeof UpdateBody>;
    checkVersionBody(body);
    const patch: PromptPatch = { ...credentialPatch(deps, prompt.workspace_id, body), ...(body.name !== undefined ? { name: body.name } : {}) };
    const now = deps.clock.now();
    const makesVersion = body.string !== undefined || body.parameters !== undefined || body.model !== undefined || body.metadata !== undefined;
    let number = prompt.latest_version;
    if (makesVersion) {
      let fields: VersionFields;
      if (body.patch) {
        const latest = (await getPromptVersion(deps.store, prompt.id, prompt.latest_version))!;
        fields = {
          template: body.string ?? latest.template,
          parameters: body.parameters ?? latest.parameters,
          model: body.model !== undefined ? body.model : latest.model,
          metadata: body.metadata ?? latest.metadata,
          description: body.version_description ?? null,
        };
      } else {
        if (body.string === undefined) throw new GatewayError('invalid_request', 'body.string is required for a new version (or send patch: true to keep the latest version\'s template).', { param: 'body.string' });
        fields = { template: body.string, parameters: body.parameters ?? {}, model: body.model ?? null, metadata: body.metadata ?? {}, description: body.version_description ?? null };
      }
      number = await addPromptVersion(deps.store, prompt.id, fields, patch, now);
    } else {
      await updatePrompt(deps.store, prompt.id, patch, now);
    }
    await deps.runtime.changed();
    const updated = (await getPrompt(deps.store, 'prompt', prompt.id, [prompt.workspace_id]))!;
    return present(updated, (await getPromptVersion(deps.store, prompt.id, number))!);
  });

  app.put('/v1/prompts/:promptId/makeDefault', { config: { permission: 'prompts.write' }, schema: { params: PromptParams, body: MakeDefaultBody, tags, summary: 'Publish a version of a prompt' } }, async (request) => {
    const prompt = await loadForWrite(deps, request, 'prompt', (request.params as { promptId: string }).promptId);
    const { version } = request.body as Static<typeof MakeDefaultBody>;
    if (!(await publishPromptVersion(deps.store, prompt.id, version, deps.clock.now()))) {
      throw new GatewayError('not_found', `The prompt '${prompt.slug}' has no version ${version}.`, { param: 'version' });
    }
    await deps.runtime.changed();
    const updated = (await getPrompt(deps.store, 'prompt', prompt.id, [prompt.workspace_id]))!;
    return present(updated, (await getPromptVersion(deps.store, prompt.id, version))!);
  });

  app.delete('/v1/prompts/:promptId', { config: { permission: 'prompts.write' }, schema: { params: PromptParams, tags, summary: 'Delete a prompt and every version' } }, async (request) => {
    const prompt = await loadForWrite(deps, request, 'prompt', (request.params as { promptId: string }).promptId);
    await deletePrompt(deps.store, prompt.id);
    await deps.runtime.changed();
    return { id: prompt.id, object: 'prompt', deleted: true };
  });
}
