import type { ServerResponse } from 'node:http';
import { sendJson, type RecordedRequest } from '../shared/fake-server.js';
import { fakeId, fakeImage, fakeRelevance } from '../shared/fake-media.js';

/** The thirteen moderation categories OpenAI reports (and the specification lists). */
export const FAKE_MODERATION_CATEGORIES = [
  'hate',
  'hate/threatening',
  'harassment',
  'harassment/threatening',
  'illicit',
  'illicit/violent',
  'self-harm',
  'self-harm/intent',
  'self-harm/instructions',
  'sexual',
  'sexual/minors',
  'violence',
  'violence/graphic',
];

/** The categories OpenAI's omni models also score on images. */
const IMAGE_CATEGORIES = new Set(['self-harm', 'self-harm/intent', 'self-harm/instructions', 'sexual', 'violence', 'violence/graphic']);

/** Words that flag a category in the fake moderation model. */
const TRIGGERS: Record<string, string> = { kill: 'violence', hate: 'hate', blood: 'violence/graphic', hurt: 'self-harm' };

function error(res: ServerResponse, status: number, message: string, param: string | null, code: string | null = null): void {
  sendJson(res, status, { error: { message, type: 'invalid_request_error', param, code } });
}

/**
 * `POST /images/generations` as OpenAI answers it: dall-e models honour `response_format` (`url`
 * default, links on a fake CDN host, never fetched); gpt-image models always answer `b64_json` and
 * refuse `response_format`. dall-e-3 adds a `revised_prompt`.
 * @see https://platform.openai.com/docs/api-reference/images/create
 */
export function answerImages(body: any, res: ServerResponse): void {
  if (typeof body.prompt !== 'string')
    return error(res, 400, "Missing required parameter: 'prompt'.", 'prompt', 'missing_required_parameter');
  const model = body.model ?? 'dall-e-2';
  const gptImage = String(model).startsWith('gpt-image');
  if (gptImage && body.response_format !== undefined)
    return error(res, 400, "Unknown parameter: 'response_format'.", 'response_format', 'unknown_parameter');
  const n = body.n ?? 1;
  const data = Array.from({ length: n }, (_, i) => {
    const item: Record<string, unknown> = {};
    if (gptImage || body.response_format === 'b64_json') item.b64_json = fakeImage(body.prompt, i).toString('base64');
    else item.url = `https://fake-images.example/${fakeId(body.prompt + i)}.png?se=2099-01-01`;
    if (model === 'dall-e-3') item.revised_prompt = `revised: ${body.prompt}`;
    return item;
  });
  sendJson(res, 200, {
    created: 1700000000,
    data,
    ...(gptImage ? { usage: { input_tokens: 10, output_tokens: 100, total_tokens: 110 } } : {}),
  });
}

/**
 * `POST /moderations`: flags `violence` for "kill", `hate` for "hate", `violence/graphic` for
 * "blood", `self-harm` for "hurt", `violence` for an image whose URL says "kill"; every category appears
 * in the three maps. One result per string of an array; an array of text and image parts is one input
 * (one result) whose `category_applied_input_types` name `image` for the image-scored categories.
 * @see https://platform.openai.com/docs/api-reference/moderations/create
 */
export function answerModerations(body: any, res: ServerResponse): void {
  const input = body.input;
  const multimodal = Array.isArray(input) && input.some((x: unknown) => typeof x === 'object' && x !== null);
  const inputs: Array<{ text: string; image: string | undefined }> = multimodal
    ? [
        {
          text: input
            .filter((p: any) => p?.type === 'text')
            .map((p: any) => p.text)
            .join(' '),
          image: input.find((p: any) => p?.type === 'image_url')?.image_url?.url,
        },
      ]
    : (typeof input === 'string' ? [input] : Array.isArray(input) ? input : []).map((text: unknown) => ({
        text: String(text),
        image: undefined,
      }));
  if (inputs.length === 0) return error(res, 400, "Missing required parameter: 'input'.", 'input', 'missing_required_parameter');
  const results = inputs.map(({ text, image }) => {
    const words = `${text} ${image ?? ''}`.toLowerCase().split(/\W+/);
    const hit = new Set(words.map((w) => TRIGGERS[w]).filter(Boolean));
    const categories = Object.fromEntries(FAKE_MODERATION_CATEGORIES.map((c) => [c, hit.has(c)]));
    const category_scores = Object.fromEntries(FAKE_MODERATION_CATEGORIES.map((c) => [c, hit.has(c) ? 0.97 : 0.0001]));
    const applied = (c: string) => [...(text ? ['text'] : []), ...(image && IMAGE_CATEGORIES.has(c) ? ['image'] : [])];
    const category_applied_input_types = Object.fromEntries(FAKE_MODERATION_CATEGORIES.map((c) => [c, applied(c)]));
    return { flagged: hit.size > 0, categories, category_scores, category_applied_input_types };
  });
  const model =
    body.model === 'text-moderation-stable'
      ? 'text-moderation-stable'
      : body.model === 'text-moderation-latest'
        ? 'text-moderation-007'
        : body.model === undefined || body.model === 'omni-moderation-latest'
          ? 'omni-moderation-2024-09-26'
          : body.model;
  sendJson(res, 200, { id: 'modr-' + fakeId(JSON.stringify(inputs)), model, results });
}

/**
 * `POST /rerank` in the vLLM / Jina format: `{model, query, documents, top_n}` →
 * `{id, model, usage, results: [{index, document: {text}, relevance_score}]}`, best first.
 * @see https://docs.vllm.ai/en/latest/serving/openai_compatible_server.html#re-rank-api
 */
export function answerRerank(body: any, res: ServerResponse): void {
  if (typeof body.query !== 'string' || !Array.isArray(body.documents))
    return error(res, 400, 'query and documents are required', 'documents');
  const docs: string[] = body.documents.map((d: unknown) => (typeof d === 'string' ? d : String((d as { text?: unknown })?.text ?? '')));
  const scores = fakeRelevance(body.query, docs);
  const results = docs
    .map((text, index) => ({ index, document: { text }, relevance_score: scores[index]! }))
    .sort((a, b) => b.relevance_score - a.relevance_score)
    .slice(0, body.top_n ?? docs.length);
  const tokens = docs.reduce((n, d) => n + Math.ceil(d.length / 4), Math.ceil(body.query.length / 4));
  sendJson(res, 200, { id: 'rerank-' + fakeId(body.query), model: body.model ?? 'rerank-fake', usage: { total_tokens: tokens }, results });
}

/** Serves the media paths; returns false for other paths. */
export function handleMedia(req: RecordedRequest, res: ServerResponse, path: string): boolean {
  if (req.method !== 'POST' || req.body === undefined) return false;
  if (path === '/images/generations') answerImages(req.body, res);
  else if (path === '/moderations') answerModerations(req.body, res);
  else if (path === '/rerank') answerRerank(req.body, res);
  else return false;
  return true;
}
