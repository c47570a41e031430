import type { ImageGenerationRequest, ImagesResponse, ImageSize } from '../../foundation/spec/images.js';
import { imageAspectRatio, imageSizeOf } from '../../foundation/spec/images.js';
import { GatewayError } from '../../foundation/errors/gateway-error.js';
import { isObject } from '../../foundation/lib/json.js';
import { unixSeconds } from '../../foundation/lib/clock.js';
import type { CallContext, EndpointAdapter, UpstreamCall } from '../provider.js';
import { bedrockModelUrl, readBedrockAuth, signBedrockRequest } from './bedrock-auth.js';
import { requireModel } from './bedrock-chat.js';

/** Titan Image Generator sizes nearest to the specification's (Titan takes 320–1408 px per side). */
const TITAN_SIZES: Record<ImageSize, [number, number]> = {
  '256x256': [512, 512],
  '512x512': [512, 512],
  '1024x1024': [1024, 1024],
  '1792x1024': [1408, 768],
  '1024x1792': [768, 1408],
};

function isTitan(model: string): boolean {
  return /(^|[.:/])amazon\.titan-image-generator/.test(model);
}

function isStability(model: string): boolean {
  return /(^|[.:/])stability\./.test(model);
}

/** The SDXL 1.0 family takes `text_prompts`; later Stability models take `prompt`. */
function isSdxl(model: string): boolean {
  return /stability\.stable-diffusion-xl/.test(model);
}

/**
 * The InvokeModel body for an image model: Titan `{taskType: 'TEXT_IMAGE', textToImageParams,
 * imageGenerationConfig}` (`hd` → `premium`), Stability SDXL `{text_prompts, width, height, samples}`,
 * later Stability models `{prompt, aspect_ratio, output_format}` (one image per call, so `n` must be 1).
 * @see https://docs.aws.amazon.com/bedrock/latest/userguide/model-parameters-titan-image.html
 * @see https://docs.aws.amazon.com/bedrock/latest/userguide/model-parameters-diffusion-3-text-image.html
 */
export function buildBedrockImageBody(req: ImageGenerationRequest, model: string): Record<string, unknown> {
  const size = imageSizeOf(req);
  if (isTitan(model)) {
    const [width, height] = TITAN_SIZES[size];
    return {
      taskType: 'TEXT_IMAGE',
      textToImageParams: { text: req.prompt, ...(typeof req.negative_prompt === 'string' ? { negativeText: req.negative_prompt } : {}) },
      imageGenerationConfig: {
        numberOfImages: req.n ?? 1,
        width,
        height,
        quality: req.quality === 'hd' ? 'premium' : 'standard',
        cfgScale: 8,
      },
    };
  }
  if (isStability(model)) {
    if (isSdxl(model)) {
      const [width, height] = TITAN_SIZES[size];
      return { text_prompts: [{ text: req.prompt, weight: 1 }], width, height, samples: req.n ?? 1 };
    }
    if ((req.n ?? 1) !== 1)
      throw new GatewayError('invalid_request', `Bedrock model '${model}' generates one image per request: 'n' must be 1.`, { param: 'n' });
    return { prompt: req.prompt, aspect_ratio: imageAspectRatio(size), output_format: 'png', mode: 'text-to-image' };
  }
  throw new GatewayError(
    'invalid_request',
    `Bedrock images support Titan Image Generator (amazon.titan-image-generator-*) and Stability (stability.*) models, not '${model}'.`,
    {
      param: 'model',
    },
  );
}

/**
 * Maps an image model's answer (`images: [base64]` for Titan and Stability, `artifacts: [{base64}]`
 * for SDXL) to the image result object with inline images. A Titan `error` or an empty answer is a 502.
 */
export function mapBedrockImageResponse(body: unknown, created: number): ImagesResponse {
  const obj = isObject(body) ? body : {};
  const images = Array.isArray(obj.images)
    ? obj.images.filter((x): x is string => typeof x === 'string')
    : Array.isArray(obj.artifacts)
      ? obj.artifacts
          .filter(isObject)
          .map((a) => a.base64)
          .filter((x): x is string => typeof x === 'string')
      : [];
  if (images.length === 0) {
    const reason = typeof obj.error === 'string' ? obj.error : 'The provider returned no image.';
    throw new GatewayError('provider_error', reason, { provider: 'bedrock', status: 502 });
  }
  return { created, data: images.map((b64_json) => ({ b64_json })) };
}

async function buildRequest(req: ImageGenerationRequest, ctx: CallContext): Promise<UpstreamCall> {
  const auth = readBedrockAuth(ctx.target);
  const model = requireModel(req.model);
  const body = JSON.stringify(buildBedrockImageBody(req, model));
  const url = bedrockModelUrl(ctx.target, auth.region, model, 'invoke');
  const headers = await signBedrockRequest(auth, url, body, 'application/json', ctx.target.forwardHeaders, new Date(ctx.clock.now()));
  return { url, method: 'POST', headers, body };
}

/** The Bedrock images endpoint (InvokeModel with Titan Image Generator or Stability models). */
export const bedrockImages: EndpointAdapter<ImageGenerationRequest, ImagesResponse> = {
  buildRequest,
  mapResponse: (body, _req, ctx) => mapBedrockImageResponse(body, unixSeconds(ctx.clock)),
};
