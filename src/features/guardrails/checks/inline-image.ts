/**
 * default.inlineImage {maxSizeBytes (default 20 MB = 20971520), timeoutMs (default 30000),
 * failOnError (default false)}: before the request, measures every image in the request
 * (chat `image_url` parts and Responses `input_image` parts) and fails when one is larger than
 * `maxSizeBytes`. `data:` URLs are measured from their base64 length without decoding; http(s)
 * images are fetched through the injected CheckHttp (Content-Length first, then counting bytes,
 * stopping past the limit) within `timeoutMs`. A fetch that fails (timeout, connection error,
 * non-2xx, unsupported scheme, no HTTP client) passes when `failOnError` is false (fail open) and
 * fails when it is true; `error` then says why.
 */
import { isObject } from '../../../foundation/lib/json.js';
import { NETWORK_CHECK_GRACE_MS, defineCheck, type CheckInput } from '../check.js';
import { describeHttpError, readCapped, timeoutSignal } from '../check-http.js';
import { ParamReader } from '../params.js';

export const DEFAULT_MAX_IMAGE_BYTES = 20 * 1024 * 1024;

/** Image URLs of a request body, in message order. */
export function imageUrlsOf(body: Record<string, unknown>): string[] {
  const urls: string[] = [];
  const items = [...(Array.isArray(body.messages) ? body.messages : []), ...(Array.isArray(body.input) ? body.input : [])];
  for (const item of items) {
    if (!isObject(item) || !Array.isArray(item.content)) continue;
    for (const part of item.content) {
      if (!isObject(part)) continue;
      const ref = part.image_url;
      if (typeof ref === 'string') urls.push(ref);
      else if (isObject(ref) && typeof ref.url === 'string') urls.push(ref.url);
    }
  }
  return urls;
}

/** Decoded size of a `data:` URL's payload, computed from its text. */
export function dataUrlSize(url: string): number {
  const comma = url.indexOf(',');
  const header = url.slice(5, comma < 0 ? url.length : comma);
  const payload = comma < 0 ? '' : url.slice(comma + 1);
  if (/;base64$/i.test(header)) {
    const b64 = payload.replace(/\s|%0A|%0D/gi, '');
    const padding = b64.endsWith('==') ? 2 : b64.endsWith('=') ? 1 : 0;
    return Math.max(0, Math.floor((b64.length * 3) / 4) - padding);
  }
  try {
    return Buffer.byteLength(decodeURIComponent(payload));
  } catch {
    return Buffer.byteLength(payload);
  }
}

interface Measured {
  index: number;
  url?: string;
  sizeBytes?: number;
  error?: string;
}

async function measureRemote(
  input: CheckInput,
  url: string,
  max: number,
  timeoutMs: number,
): Promise<{ sizeBytes?: number; error?: string }> {
  if (!input.http) return { error: 'no HTTP client available' };
  const signal = timeoutSignal(timeoutMs, input.signal);
  try {
    const res = await input.http({ url, method: 'GET', headers: { accept: 'image/*' }, signal });
    if (res.status < 200 || res.status > 299) {
      await readCapped(res.body, 0).catch(() => undefined);
      return { error: `HTTP ${res.status}` };
    }
    const declared = Number(res.headers['content-length']);
    if (Number.isFinite(declared) && declared > max) {
      await readCapped(res.body, 0).catch(() => undefined);
      return { sizeBytes: declared };
    }
    const read = await readCapped(res.body, max);
    return { sizeBytes: read.bytes };
  } catch (err) {
    return { error: describeHttpError(err, timeoutMs, signal) };
  }
}

export const inlineImage = defineCheck({
  id: 'default.inlineImage',
  phases: ['beforeRequestHook'],
  reads: 'request',
  parse(params, path) {
    const p: ParamReader = new ParamReader(params, path);
    return {
      maxSizeBytes: p.int('maxSizeBytes', DEFAULT_MAX_IMAGE_BYTES, 1),
      timeoutMs: p.int('timeoutMs', 30_000, 1, 600_000),
      failOnError: p.bool('failOnError', false),
    };
  },
  budget: (p) => ({ ms: p.timeoutMs + NETWORK_CHECK_GRACE_MS, failOpen: !p.failOnError }),
  async evaluate(input, { maxSizeBytes, timeoutMs, failOnError }) {
    const urls = imageUrlsOf(input.request.body);
    const images: Measured[] = await Promise.all(
      urls.map(async (url, index): Promise<Measured> => {
        if (/^data:/i.test(url)) return { index, sizeBytes: dataUrlSize(url) };
        if (/^https?:\/\//i.test(url)) return { index, url, ...(await measureRemote(input, url, maxSizeBytes, timeoutMs)) };
        return { index, url: url.slice(0, 100), error: 'unsupported image URL scheme' };
      }),
    );
    const oversize = images.filter((i) => i.sizeBytes !== undefined && i.sizeBytes > maxSizeBytes);
    const errors = images.filter((i) => i.error);
    const verdict = oversize.length === 0 && (errors.length === 0 || !failOnError);
    const parts: string[] = [];
    if (oversize.length) parts.push(`${oversize.length} image(s) larger than ${maxSizeBytes} bytes`);
    if (errors.length) parts.push(`${errors.length} image(s) could not be checked (failing ${failOnError ? 'closed' : 'open'})`);
    return {
      verdict,
      explanation: parts.length ? `${parts.join('; ')}.` : `${images.length} image(s) within ${maxSizeBytes} bytes.`,
      data: { maxSizeBytes, images },
      error: errors.length ? errors.map((e) => `image ${e.index}: ${e.error}`).join('; ') : undefined,
    };
  },
});
