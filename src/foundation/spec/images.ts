/**
 * Image generation in the common schema (`POST /v1/images/generations`).
 * @see https://platform.openai.com/docs/api-reference/images/create
 */
export interface ImageGenerationRequest {
  prompt: string;
  model?: string;
  n?: number;
  quality?: 'standard' | 'hd';
  response_format?: 'url' | 'b64_json';
  size?: ImageSize;
  style?: 'vivid' | 'natural';
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

/** The size a request asks for, or the specification's default. */
export function imageSizeOf(req: ImageGenerationRequest): ImageSize {
  return req.size ?? '1024x1024';
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
