import { LRUCache } from 'lru-cache';
import { GatewayError } from '../../foundation/errors/gateway-error.js';
import type { PromptVersion } from './prompts-repo.js';
import { compileTemplate, missingVariables, type CompiledTemplate, type ResolvedPartial } from './compile-template.js';
import { parsePromptRef, selectVersion } from './prompt-ref.js';
import type { CatalogEntry, LookupScope, PromptCatalog } from './prompt-catalog.js';

/** A rendered prompt with what the data plane needs to run it. */
export interface RenderedPrompt {
  promptId: string;
  workspaceId: string;
  version: number;
  /** The prompt's saved credential (used when the request names no provider). */
  credential: { virtualKey: string | null; provider: string | null };
  /** The rendered prompt object of the specification: messages, model, then parameters. */
  body: Record<string, unknown>;
}

/**
 * Renders stored prompts. Each prompt version is compiled once (template parsed, partials resolved,
 * required variables listed) and kept in an LRU keyed by `<prompt id>@<version>`; an entry is reused
 * while every partial it includes still resolves to the same partial version.
 */
export class PromptRenderer {
  private readonly compiled = new LRUCache<string, CompiledTemplate>({ max: 2000 });

  constructor(private readonly catalog: () => PromptCatalog) {}

  /**
   * Renders `refText` (`id`, `id@latest`, `id@N`, or a slug in their place): 404 for an unknown prompt or
   * version, 400 naming the missing variables. Parameters: the version's saved ones, then `overrides`
   * (`max_tokens` becomes `max_completion_tokens` in both).
   */
  render(refText: string, variables: Record<string, unknown>, overrides: Record<string, unknown>, scope: LookupScope): RenderedPrompt {
    const catalog = this.catalog();
    const ref = parsePromptRef(refText);
    const entry = catalog.find('prompt', ref.ref, scope);
    if (!entry) throw new GatewayError('not_found', `Unknown prompt '${ref.ref}'.`, { param: 'promptId' });
    const number = selectVersion(entry, ref.version);
    const version = entry.versions.get(number);
    if (!version) throw new GatewayError('not_found', `Prompt '${ref.ref}' has no version ${number}.`, { param: 'promptId' });
    const template = this.compile(catalog, entry, version);
    const missing = missingVariables(template.required, variables);
    if (missing.length > 0) {
      throw new GatewayError('invalid_request', `Missing prompt variable${missing.length > 1 ? 's' : ''}: ${missing.join(', ')}.`, {
        param: `variables.${missing[0]}`,
      });
    }
    const body: Record<string, unknown> = { messages: template.render(variables) };
    if (version.model) body.model = version.model;
    Object.assign(body, withCompletionTokens(version.parameters), withCompletionTokens(overrides));
    return {
      promptId: entry.id,
      workspaceId: entry.workspace_id,
      version: number,
      credential: { virtualKey: entry.virtual_key, provider: entry.provider },
      body,
    };
  }

  private compile(catalog: PromptCatalog, entry: CatalogEntry, version: PromptVersion): CompiledTemplate {
    const scope: LookupScope = { workspaceId: entry.workspace_id, organisationId: entry.organisation_id, anyWorkspace: false };
    const resolvePartial = (text: string): ResolvedPartial | undefined => {
      const hit = catalog.resolve('partial', parsePromptRef(text, 'partial'), scope);
      return hit && { key: `${hit.entry.id}@${hit.version.version}`, text: hit.version.template };
    };
    const key = `${entry.id}@${version.version}`;
    const cached = this.compiled.get(key);
    if (cached && [...cached.partials].every(([name, k]) => resolvePartial(name)?.key === k)) return cached;
    const fresh = compileTemplate(version.template, resolvePartial);
    this.compiled.set(key, fresh);
    return fresh;
  }
}

/** `max_tokens` is deprecated: its value moves to `max_completion_tokens` unless that is set too. */
export function withCompletionTokens(params: Record<string, unknown>): Record<string, unknown> {
  if (params.max_tokens === undefined) return params;
  const { max_tokens, ...rest } = params;
  return { ...rest, max_completion_tokens: rest.max_completion_tokens ?? max_tokens };
}
