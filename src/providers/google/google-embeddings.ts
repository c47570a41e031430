import type { EmbeddingsRequest, EmbeddingsResponse } from '../../foundation/spec/embeddings.js';
import { GatewayError } from '../../foundation/errors/gateway-error.js';
import { isObject } from '../../foundation/lib/json.js';

/** The texts of an embeddings request; token-id inputs are refused (Gemini embeds text only). */
export function embeddingTexts(req: EmbeddingsRequest): string[] {
  const input = req.input;
  if (typeof input === 'string') return [input];
  if (Array.isArray(input) && input.every((x) => typeof x === 'string')) return input as string[];
  throw new GatewayError('invalid_request', "This provider embeds text only: 'input' must be a string or an array of strings.", {
    param: 'input',
  });
}

/**
 * Builds the Gemini embeddings body: `embedContent` for one input, `batchEmbedContents` for several.
 * Returns the method name to call with it.
 * @see https://ai.google.dev/api/embeddings
 */
export function buildGoogleEmbeddingsBody(
  req: EmbeddingsRequest,
  model: string,
): { method: 'embedContent' | 'batchEmbedContents'; body: Record<string, unknown> } {
  const texts = embeddingTexts(req);
  const one = (text: string): Record<string, unknown> => ({
    content: { parts: [{ text }] },
    ...(req.dimensions !== undefined ? { outputDimensionality: req.dimensions } : {}),
    ...(typeof req.task_type === 'string' ? { taskType: req.task_type } : {}),
  });
  if (texts.length === 1) return { method: 'embedContent', body: one(texts[0]!) };
  return { method: 'batchEmbedContents', body: { requests: texts.map((t) => ({ model: `models/${model}`, ...one(t) })) } };
}

/** A vector as the client asked for it: numbers, or base64 of little-endian float32. */
export function encodeEmbedding(values: number[], format: EmbeddingsRequest['encoding_format']): number[] | string {
  return format === 'base64' ? Buffer.from(new Float32Array(values).buffer).toString('base64') : values;
}

function valuesOf(e: unknown): number[] {
  return isObject(e) && Array.isArray(e.values) ? (e.values as number[]) : [];
}

/**
 * Maps an `EmbedContentResponse` (`embedding`) or `BatchEmbedContentsResponse` (`embeddings`) to the
 * common list. Gemini reports no token usage for embeddings, so usage is zero.
 * @see https://ai.google.dev/api/embeddings#EmbedContentResponse
 */
export function mapGoogleEmbeddingsResponse(body: unknown, req: EmbeddingsRequest, model: string): EmbeddingsResponse {
  const res = isObject(body) ? body : {};
  const vectors = Array.isArray(res.embeddings)
    ? res.embeddings.map(valuesOf)
    : res.embedding !== undefined
      ? [valuesOf(res.embedding)]
      : [];
  return {
    object: 'list',
    data: vectors.map((v, index) => ({ object: 'embedding', index, embedding: encodeEmbedding(v, req.encoding_format) })),
    model,
    usage: { prompt_tokens: 0, total_tokens: 0 },
  };
}
