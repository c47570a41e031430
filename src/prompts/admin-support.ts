import { Type } from 'typebox';
import type { FastifyRequest } from 'fastify';
import { GatewayError } from '../errors/gateway-error.js';
import { uuid } from '../lib/ids.js';
import { iso } from '../admin/paging.js';
import { isUniqueViolation } from '../store/store.js';
import { getPrompt, getPromptVersion, type PromptKind, type PromptVersion, type StoredPrompt } from '../store/repos/prompts.js';
import type { GatewayDeps } from '../server/deps.js';
import { workspaceScope } from '../server/middleware/auth/auth.js';
import { parsePromptRef, selectVersion } from './prompt-ref.js';

/** Slugs of prompts and partials (the `{{> slug}}` of a partial). */
export const Slug = Type.String({ pattern: '^[a-z0-9][a-z0-9_-]{0,127}$' });
export const PromptParams = Type.Object({ promptId: Type.String({ minLength: 1 }) });
export const PartialParams = Type.Object({ partialId: Type.String({ minLength: 1 }) });
export const MakeDefaultBody = Type.Object({ version: Type.Integer({ minimum: 1 }) }, { additionalProperties: false });

const OBJECT_NAME: Record<PromptKind, string> = { prompt: 'prompt', partial: 'prompt_partial' };
const LABEL: Record<PromptKind, string> = { prompt: 'prompt', partial: 'prompt partial' };

/** A slug made from a name; `unique` adds a random suffix (prompt names repeat; partial slugs are what templates type). */
export function slugify(name: string, unique: boolean): string {
  const base = name.toLowerCase().replace(/[^a-z0-9]+/g, '-').replace(/^-+|-+$/g, '').slice(0, 100) || 'prompt';
  return unique ? `${base}-${uuid().slice(0, 8)}` : base;
}

/** The public view of a prompt or partial at one version. */
export function present(p: StoredPrompt, v: PromptVersion): Record<string, unknown> {
  const common = {
    id: p.id,
    object: OBJECT_NAME[p.kind],
    name: p.name,
    slug: p.slug,
    organisation_id: p.organisation_id,
    workspace_id: p.workspace_id,
    published_version: p.published_version,
    latest_version: p.latest_version,
    version: v.version,
    string: v.template,
  };
  const extra = p.kind === 'prompt' ? { parameters: v.parameters, model: v.model, metadata: v.metadata, virtual_key: p.virtual_key, provider: p.provider } : {};
  return { ...common, ...extra, version_description: v.description, version_created_at: iso(v.created_at), created_at: iso(p.created_at), updated_at: iso(p.updated_at) };
}

/** One version in a versions list. */
export function presentVersion(p: StoredPrompt, v: PromptVersion): Record<string, unknown> {
  const extra = p.kind === 'prompt' ? { parameters: v.parameters, model: v.model, metadata: v.metadata } : {};
  return { version: v.version, published: v.version === p.published_version, string: v.template, ...extra, version_description: v.description, created_at: iso(v.created_at) };
}

/**
 * Loads a prompt or partial named by a path parameter (`id`, `slug`, with `@latest` / `@N`) within the
 * key's workspaces, and the version it selects: 404 when either is unknown.
 */
export async function loadSelected(deps: GatewayDeps, request: FastifyRequest, kind: PromptKind, param: string): Promise<{ prompt: StoredPrompt; version: PromptVersion }> {
  const ref = parsePromptRef(param, 'id');
  const prompt = await getPrompt(deps.store, kind, ref.ref, workspaceScope(request, deps.runtime));
  if (!prompt) throw new GatewayError('not_found', `Unknown ${LABEL[kind]} '${ref.ref}'.`);
  const number = selectVersion(prompt, ref.version);
  const version = await getPromptVersion(deps.store, prompt.id, number);
  if (!version) throw new GatewayError('not_found', `The ${LABEL[kind]} '${ref.ref}' has no version ${number}.`);
  return { prompt, version };
}

/** Loads a prompt or partial by id or slug (no version suffix allowed: the write names the prompt itself). */
export async function loadForWrite(deps: GatewayDeps, request: FastifyRequest, kind: PromptKind, param: string): Promise<StoredPrompt> {
  const prompt = await getPrompt(deps.store, kind, param, workspaceScope(request, deps.runtime));
  if (!prompt) throw new GatewayError('not_found', `Unknown ${LABEL[kind]} '${param}'.`);
  return prompt;
}

/** Runs an insert, turning a duplicate slug into 409 `conflict`. */
export async function insertUnique(kind: PromptKind, slug: string, insert: () => Promise<void>): Promise<void> {
  try {
    await insert();
  } catch (err) {
    if (isUniqueViolation(err)) throw new GatewayError('conflict', `A ${LABEL[kind]} with slug '${slug}' already exists in this workspace.`, { param: 'slug' });
    throw err;
  }
}
