import { readBodyText } from '../../foundation/lib/http-client.js';
import { GatewayError } from '../../foundation/errors/gateway-error.js';
import type { Clock } from '../../foundation/lib/clock.js';
import type { HttpClient } from '../../foundation/lib/http-client.js';
import { isObject, tryParseJson } from '../../foundation/lib/json.js';
import type { CallContext, ProviderAdapter, ProviderTarget } from '../../providers/provider.js';
import { normalise } from './cache-store.js';

/** The HTTP client and clock an embedding call uses. */
export interface EmbedDeps {
  http: HttpClient;
  clock: Clock;
}

/**
 * Embeds `text` through the request's own target (same provider, host and credential) with `model`,
 * using the provider adapter's embeddings endpoint. Returns a unit vector; undefined when the provider
 * has no embeddings endpoint. Throws on a failed call (the caller degrades to an exact-only lookup).
 */
export async function embedText(
  adapter: ProviderAdapter,
  target: ProviderTarget,
  model: string,
  text: string,
  signal: AbortSignal,
  deps: EmbedDeps,
): Promise<Float32Array | undefined> {
  const endpoint = adapter.endpoints.embeddings;
  if (!endpoint) return undefined;
  const ctx: CallContext = { target, stream: false, signal, http: deps.http, clock: deps.clock };
  const req = { model, input: text };
  const upstream = await endpoint.buildRequest(req, ctx);
  const res = await deps.http.send({ ...upstream, signal }, adapter.name);
  const body = await readBodyText(res, adapter.name);
  if (res.status < 200 || res.status >= 300) throw adapter.mapError(res.status, body, res.headers);
  const parsed = tryParseJson(body);
  if (parsed === undefined)
    throw new GatewayError('provider_error', 'The embeddings answer is not JSON.', { provider: adapter.name, status: 502 });
  const mapped = endpoint.mapResponse(parsed, req, ctx);
  const first = isObject(mapped) && Array.isArray(mapped.data) ? mapped.data[0] : undefined;
  const embedding = isObject(first) ? first.embedding : undefined;
  if (!Array.isArray(embedding) || embedding.length === 0 || !embedding.every((x) => typeof x === 'number')) {
    throw new GatewayError('provider_error', 'The embeddings answer carries no float vector.', { provider: adapter.name, status: 502 });
  }
  return normalise(embedding);
}
