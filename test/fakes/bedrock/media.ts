import type { ServerResponse } from 'node:http';
import { sendJson } from '../shared/fake-server.js';
import { fakeImage, fakeRelevance } from '../shared/fake-media.js';

type SendError = (res: ServerResponse, status: number, type: string, message: string) => void;

/**
 * InvokeModel for image models: Titan Image Generator (`taskType: TEXT_IMAGE` → `{images, error: null}`),
 * Stability SDXL (`text_prompts` → `{result, artifacts: [{base64, seed, finishReason}]}`) and later
 * Stability models (`prompt` → `{seeds, finish_reasons, images}`). Returns false for other models.
 * @see https://docs.aws.amazon.com/bedrock/latest/userguide/model-parameters-titan-image.html
 * @see https://docs.aws.amazon.com/bedrock/latest/userguide/model-parameters-diffusion-3-text-image.html
 */
export function answerBedrockImage(modelId: string, body: any, res: ServerResponse, fail: SendError): boolean {
  if (/^amazon\.titan-image-generator-v[12]/.test(modelId)) {
    const text = body.textToImageParams?.text;
    const cfg = body.imageGenerationConfig ?? {};
    if (body.taskType !== 'TEXT_IMAGE' || typeof text !== 'string')
      fail(res, 400, 'ValidationException', 'Malformed input request: #: required key [taskType, textToImageParams] not found.');
    else if (cfg.numberOfImages !== undefined && (cfg.numberOfImages < 1 || cfg.numberOfImages > 5))
      fail(res, 400, 'ValidationException', 'Malformed input request: #/imageGenerationConfig/numberOfImages: 1 to 5.');
    else if (cfg.quality !== undefined && !['standard', 'premium'].includes(cfg.quality))
      fail(res, 400, 'ValidationException', 'Malformed input request: #/imageGenerationConfig/quality: standard or premium.');
    else
      sendJson(res, 200, {
        images: Array.from({ length: cfg.numberOfImages ?? 1 }, (_, i) => fakeImage(text, i).toString('base64')),
        error: null,
      });
    return true;
  }
  if (/^stability\.stable-diffusion-xl/.test(modelId)) {
    const text = body.text_prompts?.[0]?.text;
    if (typeof text !== 'string')
      fail(res, 400, 'ValidationException', 'Malformed input request: #: required key [text_prompts] not found.');
    else
      sendJson(res, 200, {
        result: 'success',
        artifacts: Array.from({ length: body.samples ?? 1 }, (_, i) => ({
          seed: i,
          base64: fakeImage(text, i).toString('base64'),
          finishReason: 'SUCCESS',
        })),
      });
    return true;
  }
  if (/^stability\./.test(modelId)) {
    if (typeof body.prompt !== 'string')
      fail(res, 400, 'ValidationException', 'Malformed input request: #: required key [prompt] not found.');
    else sendJson(res, 200, { seeds: [42], finish_reasons: [null], images: [fakeImage(body.prompt, 0).toString('base64')] });
    return true;
  }
  return false;
}

const RERANK_ARN = /^arn:aws:bedrock:[a-z0-9-]+::foundation-model\/(amazon\.rerank-v1:0|cohere\.rerank-v3-5:0)$/;

/**
 * Agent Runtime `POST /rerank`: one TEXT query, INLINE TEXT sources, a Bedrock reranking model ARN,
 * `numberOfResults` → `{results: [{index, relevanceScore}]}` best first.
 * @see https://docs.aws.amazon.com/bedrock/latest/APIReference/API_agent-runtime_Rerank.html
 */
export function answerBedrockRerank(body: any, res: ServerResponse, fail: SendError): void {
  const query = body?.queries?.[0]?.textQuery?.text;
  const sources: any[] = Array.isArray(body?.sources) ? body.sources : [];
  const config = body?.rerankingConfiguration?.bedrockRerankingConfiguration;
  const arn = config?.modelConfiguration?.modelArn;
  if (
    typeof query !== 'string' ||
    sources.length === 0 ||
    sources.some((s) => typeof s?.inlineDocumentSource?.textDocument?.text !== 'string')
  ) {
    return fail(res, 400, 'ValidationException', '1 validation error detected: queries and sources are required.');
  }
  if (body.rerankingConfiguration.type !== 'BEDROCK_RERANKING_MODEL' || typeof arn !== 'string' || !RERANK_ARN.test(arn)) {
    return fail(res, 400, 'ValidationException', `The provided model identifier is invalid: ${arn}`);
  }
  const docs = sources.map((s) => s.inlineDocumentSource.textDocument.text as string);
  const scores = fakeRelevance(query, docs);
  const results = docs.map((_, index) => ({ index, relevanceScore: scores[index]! })).sort((a, b) => b.relevanceScore - a.relevanceScore);
  sendJson(res, 200, { results: results.slice(0, config.numberOfResults ?? results.length) });
}
