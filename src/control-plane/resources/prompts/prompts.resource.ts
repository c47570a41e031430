import { Type } from 'typebox';
import { GatewayError } from '../../../foundation/errors/gateway-error.js';
import { uuid } from '../../../foundation/lib/ids.js';
import {
  addPromptVersion,
  getPrompt,
  getPromptVersion,
  insertPrompt,
  updatePrompt,
  type PromptPatch,
  type StoredPrompt,
  type VersionFields,
} from '../../../features/prompts/prompts-repo.js';
import type { GatewayDeps } from '../../../data-plane/pipeline/deps.js';
import { templateMessages } from '../../../features/prompts/compile-template.js';
import { SavedParameters, checkParameterKeys } from '../../../features/prompts/hyperparameters.js';
import { PROMPTS_SECTION } from '../../../features/prompts/prompt-catalog.js';
import { defineResource } from '../../resource/define-resource.js';
import { Slug, slugify } from '../../resource/slug.js';
import { ID_PARAM, PromptAnswer, PromptVersions, insertUnique, presentPrompt, promptAt, promptRepo } from './prompt-record.js';
import { makeDefaultAction, versionsAction } from './prompt-actions.js';
import { Nullable } from '../../../foundation/spec/nullable.js';

const Metadata = Type.Record(Type.String(), Type.Unknown());
const Credential = {
  virtual_key: Type.Optional(
    Type.Union([Type.String({ minLength: 1 }), Type.Null()], {
      description: 'Id or slug of the virtual key the prompt runs with when a request names no provider.',
    }),
  ),
  provider: Type.Optional(
    Type.Union([Type.String({ minLength: 1 }), Type.Null()], {
      description: 'Provider slug `@<slug>` the prompt runs with when a request names no provider.',
    }),
  ),
};
const CreatePrompt = Type.Object(
  {
    name: Type.String({ minLength: 1, maxLength: 200 }),
    slug: Type.Optional(Slug),
    workspace_id: Type.Optional(Type.String()),
    string: Type.String({
      minLength: 1,
      description: 'The template: a JSON array of chat messages, or plain text (one user message). Mustache.',
    }),
    parameters: Type.Optional(SavedParameters),
    model: Type.Optional(Type.String({ minLength: 1 })),
    metadata: Type.Optional(Metadata),
    version_description: Type.Optional(Type.String()),
    ...Credential,
  },
  { additionalProperties: false },
);
const UpdatePrompt = Type.Object(
  {
    name: Type.Optional(Type.String({ minLength: 1, maxLength: 200 })),
    string: Type.Optional(Type.String({ minLength: 1 })),
    parameters: Type.Optional(SavedParameters),
    model: Type.Optional(Nullable(Type.String({ minLength: 1 }))),
    metadata: Type.Optional(Metadata),
    version_description: Type.Optional(Type.String()),
    patch: Type.Optional(
      Type.Boolean({ description: 'Back-fill `string`, `parameters`, `metadata` and `model` the body lacks from the latest version.' }),
    ),
    ...Credential,
  },
  { additionalProperties: false },
);

/** Checks the saved credential against the workspace's virtual keys; returns the prompt-level fields to store. */
function credentialPatch(
  deps: GatewayDeps,
  workspaceId: string,
  body: { virtual_key?: string | null; provider?: string | null },
): PromptPatch {
  if (body.virtual_key && body.provider)
    throw new GatewayError('invalid_request', 'Give either virtual_key or provider, not both.', { param: 'provider' });
  const known = (ref: string) => deps.runtime.current.virtualKeys.has(`${workspaceId}:${ref}`);
  if (body.virtual_key) {
    if (!known(body.virtual_key))
      throw new GatewayError('invalid_request', `Unknown virtual key '${body.virtual_key}' in the prompt's workspace.`, {
        param: 'virtual_key',
      });
    return { virtual_key: body.virtual_key, provider: null };
  }
  if (body.provider) {
    const provider = body.provider.startsWith('@') ? body.provider : `@${body.provider}`;
    if (!known(provider.slice(1)))
      throw new GatewayError('invalid_request', `Unknown provider slug '${provider}' in the prompt's workspace.`, { param: 'provider' });
    return { provider, virtual_key: null };
  }
  const out: PromptPatch = {};
  if (body.virtual_key === null) out.virtual_key = null;
  if (body.provider === null) out.provider = null;
  return out;
}

/** Compiles a template and checks saved parameters (400 naming the field). */
function checkVersionBody(body: { string?: string; parameters?: Record<string, unknown> }): void {
  if (body.string !== undefined) templateMessages(body.string);
  if (body.parameters) checkParameterKeys(body.parameters, 'parameters');
}

/**
 * `/v1/prompts`: versioned prompt templates. Create (version 1, published), read by id or slug with
 * `@latest` / `@N`, list (each at its published version), update (a new version when `string`,
 * `parameters`, `model` or `metadata` is given; `patch: true` back-fills them from the latest
 * version), `versions`, `makeDefault` (publish) and delete (every version; the slug is free again).
 * Every write republishes the workspace's part of the `prompts` runtime section.
 */
export const promptsResource = defineResource({
  name: 'prompt',
  paths: ['/v1/prompts'],
  tag: 'prompts',
  noun: { one: 'a prompt', many: 'prompts' },
  permissions: { read: 'prompts.read', write: 'prompts.write' },
  runtimeSections: [PROMPTS_SECTION],
  schemas: { create: CreatePrompt, update: UpdatePrompt, listQuery: Type.Object({}), answer: PromptAnswer },
  removal: 'delete',
  idParam: ID_PARAM.prompt,
  repo: promptRepo('prompt'),
  idOf: (r) => r.prompt.id,
  workspaceOf: (r) => r.prompt.workspace_id,
  present: presentPrompt,
  async create(ctx, body) {
    checkVersionBody(body);
    if (body.slug === 'partials') throw new GatewayError('invalid_request', "The slug 'partials' is reserved.", { param: 'slug' });
    const prompt: StoredPrompt = {
      id: uuid(),
      organisation_id: ctx.principal.organisationId,
      workspace_id: ctx.workspaceId,
      kind: 'prompt',
      name: body.name,
      slug: body.slug ?? slugify(body.name, 'prompt'),
      published_version: 1,
      latest_version: 1,
      virtual_key: null,
      provider: null,
      created_at: ctx.now,
      updated_at: ctx.now,
      ...credentialPatch(ctx.deps, ctx.workspaceId, body),
    };
    const first: VersionFields = {
      template: body.string,
      parameters: body.parameters ?? {},
      model: body.model ?? null,
      metadata: body.metadata ?? {},
      description: body.version_description ?? null,
    };
    await insertUnique('prompt', prompt.slug, () => insertPrompt(ctx.db, ctx.scope, prompt, first));
    return {
      record: { prompt, version: { ...first, version: 1, created_at: ctx.now } },
      details: { name: prompt.name, slug: prompt.slug, version: 1 },
    };
  },
  async update(ctx, { prompt }, body) {
    checkVersionBody(body);
    const patch: PromptPatch = {
      ...credentialPatch(ctx.deps, prompt.workspace_id, body),
      ...(body.name !== undefined ? { name: body.name } : {}),
    };
    const makesVersion =
      body.string !== undefined || body.parameters !== undefined || body.model !== undefined || body.metadata !== undefined;
    let number = prompt.latest_version;
    if (makesVersion) {
      let fields: VersionFields;
      if (body.patch) {
        const latest = (await getPromptVersion(ctx.db, ctx.scope, prompt.id, prompt.latest_version))!;
        fields = {
          template: body.string ?? latest.template,
          parameters: body.parameters ?? latest.parameters,
          model: body.model !== undefined ? body.model : latest.model,
          metadata: body.metadata ?? latest.metadata,
          description: body.version_description ?? null,
        };
      } else {
        if (body.string === undefined)
          throw new GatewayError(
            'invalid_request',
            "body.string is required for a new version (or send patch: true to keep the latest version's template).",
            { param: 'body.string' },
          );
        fields = {
          template: body.string,
          parameters: body.parameters ?? {},
          model: body.model ?? null,
          metadata: body.metadata ?? {},
          description: body.version_description ?? null,
        };
      }
      number = await addPromptVersion(ctx.db, ctx.scope, prompt.id, fields, patch, ctx.now);
    } else {
      await updatePrompt(ctx.db, ctx.scope, prompt.id, patch, ctx.now);
    }
    const updated = (await getPrompt(ctx.db, ctx.scope, 'prompt', prompt.id)) ?? prompt;
    return { record: await promptAt(ctx.db, ctx.scope, updated, number), details: { changed: Object.keys(body), version: number } };
  },
  actions: [versionsAction('prompt', PromptVersions), makeDefaultAction('prompt', PromptAnswer, presentPrompt)],
});
