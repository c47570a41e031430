import { GatewayError } from '../../foundation/errors/gateway-error.js';
import type { ProviderTarget } from '../provider.js';
import type { ProviderSettings } from '../provider-settings.js';

/** One row describing an OpenAI-compatible host. */
export interface OpenAICompatibleSpec {
  /** Registry name. */
  name: string;
  /** Default base URL, including the version segment (e.g. `https://api.openai.com/v1`). */
  baseUrl: string;
  /** True when the provider works without a key (local servers such as ollama). */
  keyOptional?: boolean;
  /** Builds auth headers from the key; default `Authorization: Bearer <key>`. */
  authHeaders?: (apiKey: string, target: ProviderTarget) => Record<string, string>;
  /** Extra headers for every call (from the target's config). */
  extraHeaders?: (target: ProviderTarget) => Record<string, string>;
  /** Resolves the base URL from the target when it is not a constant (Azure resources). */
  resolveBaseUrl?: (target: ProviderTarget) => string;
  /** Rewrites a path and query for this host (Azure deployments and api-version). */
  resolvePath?: (path: string, body: Record<string, unknown> | undefined, target: ProviderTarget) => string;
  /** Endpoints this host does not serve (images and moderations are on by default). */
  without?: Array<'chat' | 'completions' | 'embeddings' | 'images' | 'moderations'>;
  /** True when the host serves `POST /rerank` in the vLLM / Jina format (off by default). */
  rerank?: boolean;
  /** True when the host serves the Responses API (`POST /responses`) natively; otherwise the gateway runs it over chat. */
  responses?: boolean;
  /** True when the host serves the OpenAI files, batches and fine-tuning APIs (forwarded as they are). */
  resources?: boolean;
  /** Config keys of this host besides the OpenAI-compatible ones (`compat_organization`, `compat_project`). */
  settings?: ProviderSettings;
}

/** The base URL the target points at: `custom_host` first, else the row's default. */
export function baseUrlOf(spec: OpenAICompatibleSpec, target: ProviderTarget): string {
  if (target.customHost) return target.customHost;
  return spec.resolveBaseUrl ? spec.resolveBaseUrl(target) : spec.baseUrl;
}

/**
 * Headers of a call to an OpenAI-compatible host: content type, auth, organisation/project
 * (`compat_organization`, `compat_project`) and forwarded headers.
 */
export function openAIHeaders(spec: OpenAICompatibleSpec, target: ProviderTarget): Record<string, string> {
  // No spread of absent forwarded headers and no object only to assign `authorization` (every request builds these).
  const headers: Record<string, string> = target.forwardHeaders
    ? { ...target.forwardHeaders, 'content-type': 'application/json' }
    : { 'content-type': 'application/json' };
  if (target.apiKey) {
    if (spec.authHeaders) Object.assign(headers, spec.authHeaders(target.apiKey, target));
    else headers.authorization = `Bearer ${target.apiKey}`;
  } else if (!spec.keyOptional) {
    throw new GatewayError(
      'invalid_request',
      `Provider '${spec.name}' needs an API key: send it as 'Authorization: Bearer <key>' or config 'api_key'.`,
      {
        status: 400,
        param: 'api_key',
      },
    );
  }
  const org = target.config.compat_organization;
  const project = target.config.compat_project;
  if (typeof org === 'string') headers['openai-organization'] = org;
  if (typeof project === 'string') headers['openai-project'] = project;
  if (spec.extraHeaders) Object.assign(headers, spec.extraHeaders(target));
  return headers;
}
