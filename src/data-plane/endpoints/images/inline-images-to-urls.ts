import { randomId } from '../../../foundation/lib/ids.js';
import { isObject } from '../../../foundation/lib/json.js';
import type { LeafCall, LeafInterceptor } from '../../../routing/execute.js';
import type { Outcome } from '../../../routing/outcome.js';
import { IMAGE_URL_TTL_MS } from '../../../foundation/spec/images.js';
import type { ImageStore } from './image-store.js';
import type { UrlSigner } from './url-signer.js';

/** Path prefix of the image links (served without a gateway key). */
export const IMAGE_FILES_PATH = '/v1/images/files/';

/** The content type of image bytes from their signature (PNG, JPEG, WebP, GIF), default PNG. */
export function sniffImageType(bytes: Buffer): string {
  if (bytes[0] === 0xff && bytes[1] === 0xd8) return 'image/jpeg';
  if (bytes.subarray(0, 4).toString('latin1') === 'RIFF' && bytes.subarray(8, 12).toString('latin1') === 'WEBP') return 'image/webp';
  if (bytes.subarray(0, 3).toString('latin1') === 'GIF') return 'image/gif';
  return 'image/png';
}

export interface InlineImagesDeps {
  store: ImageStore;
  signer: UrlSigner;
  now: () => number;
  /** GATEWAY_PUBLIC_URL, else links use `http://<Host header>`. */
  publicUrl?: string;
}

function baseUrl(deps: InlineImagesDeps, headers: Record<string, string | string[] | undefined>): string {
  if (deps.publicUrl) return deps.publicUrl;
  const host = typeof headers.host === 'string' ? headers.host : '127.0.0.1';
  return `http://${host}`;
}

/**
 * For image requests whose `response_format` is `url` (the default), replaces every image the provider
 * returned inline (`b64_json` without `url`) by a signed link valid for 60 minutes, the bytes kept in
 * the image store. It must wrap the answer cache (be listed before it) so cached answers keep the
 * bytes and every hit gets a fresh link.
 */
export function createInlineImagesInterceptor(deps: InlineImagesDeps): LeafInterceptor {
  // Other endpoints go straight through, without an async frame of ours.
  return (call, next) => (call.input.endpoint !== 'images' ? next() : linkImages(call, next));

  async function linkImages(call: LeafCall, next: () => Promise<Outcome>): Promise<Outcome> {
    const outcome = await next();
    if (!outcome.json) return outcome;
    const format = call.body.response_format ?? call.input.body.response_format ?? 'url';
    if (format !== 'url') return outcome;
    const value = outcome.json.value;
    if (!isObject(value) || !Array.isArray(value.data)) return outcome;
    if (!value.data.some((d) => isObject(d) && typeof d.b64_json === 'string' && d.url === undefined)) return outcome;
    const expires = Math.floor((deps.now() + IMAGE_URL_TTL_MS) / 1000);
    const base = baseUrl(deps, call.input.headers);
    const data = await Promise.all(
      value.data.map(async (d) => {
        if (!isObject(d) || typeof d.b64_json !== 'string' || d.url !== undefined) return d;
        const bytes = Buffer.from(d.b64_json, 'base64');
        const id = 'img_' + randomId(24);
        await deps.store.put(id, { bytes, contentType: sniffImageType(bytes) }, IMAGE_URL_TTL_MS);
        const { b64_json: _inline, ...rest } = d;
        return { ...rest, url: `${base}${IMAGE_FILES_PATH}${id}?expires=${expires}&sig=${deps.signer.sign(id, expires)}` };
      }),
    );
    outcome.json.replace({ ...value, data });
    return outcome;
  }
}
