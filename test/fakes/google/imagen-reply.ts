import type { ServerResponse } from 'node:http';
import { sendJson, type RecordedRequest } from '../shared/fake-server.js';
import { fakeImage } from '../shared/fake-media.js';
import { sendGoogleError } from './gemini-reply.js';

const RATIOS = new Set(['1:1', '3:4', '4:3', '9:16', '16:9']);

/**
 * Imagen's `:predict` answer (Gemini API and Vertex AI alike): `instances: [{prompt}]`,
 * `parameters: {sampleCount 1–4, aspectRatio}` → `{predictions: [{bytesBase64Encoded, mimeType}]}`.
 * A prompt containing "forbidden" is filtered (`raiFilteredReason`).
 * @see https://cloud.google.com/vertex-ai/generative-ai/docs/model-reference/imagen-api
 */
export function answerImagen(req: RecordedRequest, res: ServerResponse): void {
  const prompt = req.body?.instances?.[0]?.prompt;
  if (typeof prompt !== 'string')
    return sendGoogleError(res, 400, 'INVALID_ARGUMENT', 'Invalid JSON payload: instances[0].prompt is required.');
  const params = req.body.parameters ?? {};
  const count = params.sampleCount ?? 4;
  if (!Number.isInteger(count) || count < 1 || count > 4)
    return sendGoogleError(res, 400, 'INVALID_ARGUMENT', 'sampleCount must be between 1 and 4.');
  if (params.aspectRatio !== undefined && !RATIOS.has(params.aspectRatio))
    return sendGoogleError(res, 400, 'INVALID_ARGUMENT', `Unsupported aspect ratio: ${params.aspectRatio}`);
  if (prompt.includes('forbidden'))
    return sendJson(res, 200, { predictions: [{ raiFilteredReason: 'The prompt violates the usage guidelines.' }] });
  const predictions = Array.from({ length: count }, (_, i) => ({
    mimeType: 'image/png',
    bytesBase64Encoded: fakeImage(prompt, i).toString('base64'),
  }));
  sendJson(res, 200, { predictions });
}
