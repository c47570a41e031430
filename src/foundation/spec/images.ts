import { GatewayError } from '../errors/gateway-error.js';

/**
 * Image generation in the common schema (`POST /v1/images/generations`).
 * @see https://platform.openai.com/docs/api-reference/images/create
 */
export interface ImageGenerationRequest {
  prompt: string;
  model?: string;
  n?: number;
  /** `standard`, `hd` (dall-e-3) or a newer model's value (`low`, `medium`, `high`, `auto`), passed on. */
  quality?: string;
  response_format?: 'url' | 'b64_json';
  /** One of the five sizes, or a newer model's (`1536x1024`, `auto`), passed on to OpenAI-speaking hosts. */
  size?: string;
  style?: string;
  user?: string;
  [key: string]: unknown;
}

/** The sizes the specification lists. */
export type ImageSize = '256x256' | '512x512' | '1024x1024' | '1792x1024' | '1024x1792';

/** One generated image: inline bytes (`b64_json`) or a link (`url`). */
export interface ImageData {
  b64_json?: string;
  url?: string;
  revised_prompt?: string;
}

/** The specification's "Image result object". */
export interface ImagesResponse {
  created: number;
  data: ImageData[];
}

/** How long an image URL stays valid (specification, "Limits"). */
export const IMAGE_URL_TTL_MS = 60 * 60 * 1000;

const SIZES: ReadonlySet<string> = new Set<ImageSize>(['256x256', '512x512', '1024x1024', '1792x1024', '1024x1792']);

/**
 * The size a request asks for, or the specification's default, for a provider that maps sizes (Imagen,
 * Titan, Stability): a size outside the five it can map is refused (400 naming `size`).
 */
export function imageSizeOf(req: ImageGenerationRequest): ImageSize {
  const size = req.size ?? '1024x1024';
  if (!SIZES.has(size)) {
    throw new GatewayError('invalid_request', `size '${size}' cannot be mapped for this provider; it takes ${[...SIZES].join(', ')}.`, {
      param: 'size',
    });
  }
  return size as ImageSize;
}

/** Width and height of a `WxH` size. */
export function imageDimensions(size: ImageSize): { width: number; height: number } {
  const [w, h] = size.split('x').map(Number);
  return { width: w!, height: h! };
}

/** The aspect ratio (`1:1`, `16:9`, `9:16`) nearest to a size, for providers that take ratios. */
export function imageAspectRatio(size: ImageSize): '1:1' | '16:9' | '9:16' {
  const { width, height } = imageDimensions(size);
  if (width > height) return '16:9';
  if (height > width) return '9:16';
  return '1:1';
}
