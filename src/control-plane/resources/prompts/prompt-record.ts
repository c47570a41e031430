import type { Kysely } from 'kysely';
import { Type } from 'typebox';
import { GatewayError } from '../../../foundation/errors/gateway-error.js';
import { isUniqueViolation } from '../../../infra/store/store.js';
import type { Database } from '../../../infra/store/schema.js';
import type { TenantScope } from '../../../kernel/tenant-scope.js';
import {
  deletePrompt,
  getPrompt,
  getPromptVersion,
  listPrompts,
  type PromptKind,
  type PromptVersion,
  type StoredPrompt,
} from '../../../features/prompts/prompts-repo.js';
import { parsePromptRef, selectVersion } from '../../../features/prompts/prompt-ref.js';
import type { ScopedRepo } from '../../resource/define-resource.js';
import { IsoTime, iso } from '../../../identity/paging.js';
import { Nullable } from '../../../foundation/spec/nullable.js';

/** A prompt or partial at one of its versions: what the prompts resources load, write and present. */
export interface PromptAt {
  prompt: StoredPrompt;
  version: PromptVersion;
}

/** How messages name each kind. */
export const LABEL: Record<PromptKind, string> = { prompt: 'prompt', partial: 'prompt partial' };

/** The path parameter of each kind (`/v1/prompts/{promptId}`, `/v1/prompts/partials/{partialId}`). */
export const ID_PARAM: Record<PromptKind, string> = { prompt: 'promptId', partial: 'partialId' };

/** The members of a prompt or partial answer (and of a versions list item) that only prompts have. */
const PromptOnly = {
  parameters: Type.Record(Type.String(), Type.Unknown()),
  model: Nullable(Type.String()),
  metadata: Type.Record(Type.String(), Type.Unknown()),
};
const NullableString = Nullable(Type.String());
const Head = {
  id: Type.String(),
  name: Type.String(),
  slug: Type.String(),
  organisation_id: Type.String(),
  workspace_id: Type.String(),
  published_version: Type.Integer(),
  latest_version: Type.Integer(),
  version: Type.Integer(),
  string: Type.String(),
};
const Tail = { version_description: NullableString, version_created_at: IsoTime, created_at: IsoTime, updated_at: IsoTime };

/** A prompt at one version, as every prompt route answers it. */
export const PromptAnswer = Type.Object({
  ...Head,
  object: Type.Literal('prompt'),
  ...PromptOnly,
  virtual_key: NullableString,
  provider: NullableString,
  ...Tail,
});
/** A partial at one version. */
export const PartialAnswer = Type.Object({ ...Head, object: Type.Literal('prompt_partial'), ...Tail });

const VersionHead = { version: Type.Integer(), published: Type.Boolean(), string: Type.String() };
const VersionTail = { version_description: NullableString, created_at: IsoTime };
/** The versions list of a prompt (newest first). */
export const PromptVersions = Type.Object({
  object: Type.Literal('list'),
  data: Type.Array(Type.Object({ ...VersionHead, ...PromptOnly, ...VersionTail })),
  total: Type.Integer(),
});
/** The versions list of a partial (newest first). */
export const PartialVersions = Type.Object({
  object: Type.Literal('list'),
  data: Type.Array(Type.Object({ ...VersionHead, ...VersionTail })),
  total: Type.Integer(),
});

function head(p: StoredPrompt, v: PromptVersion) {
  return {
    id: p.id,
    name: p.name,
    slug: p.slug,
    organisation_id: p.organisation_id,
    workspace_id: p.workspace_id,
    published_version: p.published_version,
    latest_version: p.latest_version,
    version: v.version,
    string: v.template,
  };
}

function tail(p: StoredPrompt, v: PromptVersion) {
  return {
    version_description: v.description,
    version_created_at: iso(v.created_at),
    created_at: iso(p.created_at),
    updated_at: iso(p.updated_at),
  };
}

/** The public view of a prompt at one version. */
export function presentPrompt({ prompt: p, version: v }: PromptAt) {
  return {
    ...head(p, v),
    object: 'prompt' as const,
    parameters: v.parameters,
    model: v.model,
    metadata: v.metadata,
    virtual_key: p.virtual_key,
    provider: p.provider,
    ...tail(p, v),
  };
}

/** The public view of a partial at one version. */
export function presentPartial({ prompt: p, version: v }: PromptAt) {
  return { ...head(p, v), object: 'prompt_partial' as const, ...tail(p, v) };
}

/** One version in a versions list (prompts show their parameters, model and metadata; partials do not). */
export function presentVersion(p: StoredPrompt, v: PromptVersion) {
  const extra = p.kind === 'prompt' ? { parameters: v.parameters, model: v.model, metadata: v.metadata } : {};
  return {
    version: v.version,
    published: v.version === p.published_version,
    string: v.template,
    ...extra,
    version_description: v.description,
    created_at: iso(v.created_at),
  };
}

/** A prompt or partial of the scope at version `number` (which the caller knows exists). */
export async function promptAt(db: Kysely<Database>, scope: TenantScope, prompt: StoredPrompt, number: number): Promise<PromptAt> {
  const version = await getPromptVersion(db, scope, prompt.id, number);
  if (!version) throw new Error(`Prompt ${prompt.id} has no version ${number}.`);
  return { prompt, version };
}

/**
 * Table access of one kind. `get` (writes, versions) takes an id or slug and loads the published
 * version; `read` (`GET /:id`) also takes `@latest` / `@N` (400 for another suffix, 404 for an
 * unknown version).
 */
export function promptRepo(kind: PromptKind): ScopedRepo<PromptAt, object> {
  return {
    async get(db, scope, idOrSlug) {
      const prompt = await getPrompt(db, scope, kind, idOrSlug);
      return prompt && promptAt(db, scope, prompt, prompt.published_version);
    },
    async read(db, scope, text) {
      const ref = parsePromptRef(text, 'id');
      const prompt = await getPrompt(db, scope, kind, ref.ref);
      if (!prompt) throw new GatewayError('not_found', `Unknown ${LABEL[kind]} '${ref.ref}'.`, { param: ID_PARAM[kind] });
      const number = selectVersion(prompt, ref.version);
      const version = await getPromptVersion(db, scope, prompt.id, number);
      if (!version) throw new GatewayError('not_found', `The ${LABEL[kind]} '${ref.ref}' has no version ${number}.`);
      return { prompt, version };
    },
    async list(db, scope, _query, page) {
      const { rows, total } = await listPrompts(db, scope, { kind, ...page });
      return { rows: rows.map(({ published, ...prompt }) => ({ prompt, version: published })), total };
    },
    remove: (db, scope, { prompt }) => deletePrompt(db, scope, prompt.id),
  };
}

/** Runs an insert, turning a duplicate slug into 409 `conflict` naming it. */
export async function insertUnique(kind: PromptKind, slug: string, insert: () => Promise<void>): Promise<void> {
  try {
    await insert();
  } catch (err) {
    if (isUniqueViolation(err))
      throw new GatewayError('conflict', `A ${LABEL[kind]} with slug '${slug}' already exists in this workspace.`, { param: 'slug' });
    throw err;
  }
}
