import { Type } from 'typebox';
import { uuid } from '../../../foundation/lib/ids.js';
import {
  addPromptVersion,
  getPrompt,
  insertPrompt,
  updatePrompt,
  type StoredPrompt,
  type VersionFields,
} from '../../../features/prompts/prompts-repo.js';
import { checkPartialText } from '../../../features/prompts/compile-template.js';
import { PROMPTS_SECTION } from '../../../features/prompts/prompt-catalog.js';
import { defineResource } from '../../resource/define-resource.js';
import { Slug, kebabSlug } from '../../resource/slug.js';
import { ID_PARAM, PartialAnswer, PartialVersions, insertUnique, presentPartial, promptAt, promptRepo } from '../prompts/prompt-record.js';
import { makeDefaultAction, versionsAction } from '../prompts/prompt-actions.js';

const CreatePartial = Type.Object(
  {
    name: Type.String({ minLength: 1, maxLength: 200 }),
    slug: Type.Optional(Slug),
    workspace_id: Type.Optional(Type.String()),
    string: Type.String({ minLength: 1, description: 'The partial: Mustache text inserted where a template says {{> slug}}.' }),
    version_description: Type.Optional(Type.String()),
  },
  { additionalProperties: false },
);
const UpdatePartial = Type.Object(
  {
    name: Type.Optional(Type.String({ minLength: 1, maxLength: 200 })),
    string: Type.Optional(Type.String({ minLength: 1 })),
    version_description: Type.Optional(Type.String()),
  },
  { additionalProperties: false },
);

/** A partial's version content: only the text counts. */
function partialVersion(text: string, description: string | undefined): VersionFields {
  return { template: text, parameters: {}, model: null, metadata: {}, description: description ?? null };
}

/**
 * `/v1/prompts/partials`: versioned template fragments. A template includes one with `{{> slug}}`
 * (its published version), `{{> slug@latest}}` or `{{> slug@N}}`. The slug defaults to the name in
 * kebab case (no random suffix: it is what templates type); a new `string` is a new version. Same
 * reads, `versions`, `makeDefault` and delete as prompts; writes republish the `prompts` section.
 */
export const promptPartialsResource = defineResource({
  name: 'prompt_partial',
  paths: ['/v1/prompts/partials'],
  tag: 'prompts',
  noun: { one: 'a prompt partial', many: 'prompt partials' },
  permissions: { read: 'prompts.read', write: 'prompts.write' },
  runtimeSections: [PROMPTS_SECTION],
  schemas: { create: CreatePartial, update: UpdatePartial, listQuery: Type.Object({}), answer: PartialAnswer },
  removal: 'delete',
  idParam: ID_PARAM.partial,
  repo: promptRepo('partial'),
  idOf: (r) => r.prompt.id,
  workspaceOf: (r) => r.prompt.workspace_id,
  present: presentPartial,
  async create(ctx, body) {
    checkPartialText(body.string);
    const partial: StoredPrompt = {
      id: uuid(),
      organisation_id: ctx.principal.organisationId,
      workspace_id: ctx.workspaceId,
      kind: 'partial',
      name: body.name,
      slug: body.slug ?? kebabSlug(body.name, 'prompt'),
      published_version: 1,
      latest_version: 1,
      virtual_key: null,
      provider: null,
      created_at: ctx.now,
      updated_at: ctx.now,
    };
    const first = partialVersion(body.string, body.version_description);
    await insertUnique('partial', partial.slug, () => insertPrompt(ctx.db, ctx.scope, partial, first));
    return {
      record: { prompt: partial, version: { ...first, version: 1, created_at: ctx.now } },
      details: { name: partial.name, slug: partial.slug, version: 1 },
    };
  },
  async update(ctx, { prompt: partial }, body) {
    const patch = body.name !== undefined ? { name: body.name } : {};
    let number = partial.latest_version;
    if (body.string !== undefined) {
      checkPartialText(body.string);
      number = await addPromptVersion(ctx.db, ctx.scope, partial.id, partialVersion(body.string, body.version_description), patch, ctx.now);
    } else {
      await updatePrompt(ctx.db, ctx.scope, partial.id, patch, ctx.now);
    }
    const updated = (await getPrompt(ctx.db, ctx.scope, 'partial', partial.id)) ?? partial;
    return { record: await promptAt(ctx.db, ctx.scope, updated, number), details: { changed: Object.keys(body), version: number } };
  },
  actions: [versionsAction('partial', PartialVersions), makeDefaultAction('partial', PartialAnswer, presentPartial)],
});
