import type { EmbeddingsRequest, EmbeddingsResponse } from '../../foundation/spec/embeddings.js';
import { GatewayError } from '../../foundation/errors/gateway-error.js';
import { isObject } from '../../foundation/lib/json.js';
import type { EndpointAdapter } from '../provider.js';
import { cohereBaseUrl, cohereHeaders } from './cohere-auth.js';

/** Embedding model used when the request names none. */
export const COHERE_DEFAULT_EMBED_MODEL = 'embed-v4.0';
const INPUT_TYPES = new Set(['search_document', 'search_query', 'classification', 'clustering', 'image']);

/** Body of `POST /v2/embed`. */
export interface CohereEmbedRequest {
  model: string;
  texts: string[];
  input_type: string;
  embedding_types: ['float'];
  output_dimension?: number;
  truncate?: 'NONE' | 'START' | 'END';
}

/**
 * Builds the body of `POST /v2/embed`: string inputs → `texts`, `input_type` from the request's own
 * `input_type` field (default `search_document`), `dimensions` → `output_dimension`, float embeddings.
 * Token-array inputs are refused (`invalid_request`).
 * @see https://docs.cohere.com/reference/embed
 */
export function toCohereEmbedRequest(req: EmbeddingsRequest): CohereEmbedRequest {
  const inputs = Array.isArray(req.input) ? req.input : [req.input];
  const texts = inputs.map((x, i) => {
    if (typeof x !== 'string')
      throw new GatewayError('invalid_request', 'Cohere embeds text only; token arrays are not accepted.', { param: `input[${i}]` });
    return x;
  });
  const inputType = typeof req.input_type === 'string' && INPUT_TYPES.has(req.input_type) ? req.input_type : 'search_document';
  const body: CohereEmbedRequest = {
    model: req.model ?? COHERE_DEFAULT_EMBED_MODEL,
    texts,
    input_type: inputType,
    embedding_types: ['float'],
  };
  if (req.dimensions !== undefined) body.output_dimension = req.dimensions;
  if (req.truncate === 'NONE' || req.truncate === 'START' || req.truncate === 'END') body.truncate = req.truncate;
  return body;
}

function toBase64(vector: number[]): string {
  return Buffer.from(new Float32Array(vector).buffer).toString('base64');
}

/**
 * Maps a `/v2/embed` answer (`embeddings.float`, `meta.billed_units.input_tokens`) to the common embeddings
 * list; `encoding_format: base64` is honoured by encoding the floats as little-endian float32.
 * @see https://docs.cohere.com/reference/embed#response
 */
export function mapCohereEmbedResponse(body: unknown, req: EmbeddingsRequest): EmbeddingsResponse {
  const floats =
    isObject(body) && isObject(body.embeddings) && Array.isArray(body.embeddings.float) ? (body.embeddings.float as number[][]) : undefined;
  if (!floats) throw new GatewayError('provider_error', 'Cohere answered without float embeddings.', { provider: 'cohere', status: 502 });
  const billed =
    isObject(body) && isObject(body.meta) && isObject(body.meta.billed_units) ? body.meta.billed_units.input_tokens : undefined;
  const tokens = typeof billed === 'number' ? billed : 0;
  return {
    object: 'list',
    data: floats.map((v, index) => ({ object: 'embedding', index, embedding: req.encoding_format === 'base64' ? toBase64(v) : v })),
    model: req.model ?? COHERE_DEFAULT_EMBED_MODEL,
    usage: { prompt_tokens: tokens, total_tokens: tokens },
  };
}

/**
 * The embeddings endpoint of Cohere: `POST /v2/embed`.
 * @see https://docs.cohere.com/reference/embed
 */
export const cohereEmbeddings: EndpointAdapter<EmbeddingsRequest, EmbeddingsResponse> = {
  buildRequest: (req, ctx) => ({
    url: `${cohereBaseUrl(ctx.target)}/v2/embed`,
    method: 'POST',
    headers: cohereHeaders(ctx.target),
    body: JSON.stringify(toCohereEmbedRequest(req)),
  }),
  mapResponse: (body, req) => mapCohereEmbedResponse(body, req),
};
