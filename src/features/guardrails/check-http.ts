/**
 * The outbound HTTP function network checks receive (webhook, inlineImage). Injected by the caller
 * so checks never touch global fetch; `checkHttpFrom` adapts the gateway's undici HttpClient.
 */
import type { HttpClient } from '../../foundation/lib/http-client.js';

export interface CheckHttpRequest {
  url: string;
  method: 'GET' | 'POST';
  headers?: Record<string, string>;
  body?: string;
  /** Aborts the call, including reading the body. Checks always pass one (their timeout). */
  signal: AbortSignal;
}

export interface CheckHttpResponse {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  /** The body as it arrives; stop iterating to discard the rest. */
  body: AsyncIterable<Uint8Array>;
}

/** A minimal fetch-like function. Rejects on connection errors and aborts. */
export type CheckHttp = (req: CheckHttpRequest) => Promise<CheckHttpResponse>;

/** Adapts the gateway's HttpClient (undici) to CheckHttp. */
export function checkHttpFrom(client: HttpClient): CheckHttp {
  return async (req) => {
    const res = await client.send({
      url: req.url,
      method: req.method,
      headers: req.headers ?? {},
      body: req.body,
      signal: req.signal,
    });
    return { status: res.status, headers: res.headers, body: res.body };
  };
}

/** Reads at most `maxBytes`; `overflow` is true when the body was longer (the rest is discarded). */
export async function readCapped(
  body: AsyncIterable<Uint8Array>,
  maxBytes: number,
): Promise<{ bytes: number; overflow: boolean; data: Buffer }> {
  const parts: Buffer[] = [];
  let bytes = 0;
  for await (const chunk of body) {
    bytes += chunk.byteLength;
    if (bytes > maxBytes) return { bytes, overflow: true, data: Buffer.concat(parts) };
    parts.push(Buffer.from(chunk));
  }
  return { bytes, overflow: false, data: Buffer.concat(parts) };
}

/** A signal that fires after `ms` or when `parent` fires. */
export function timeoutSignal(ms: number, parent?: AbortSignal): AbortSignal {
  const timer = AbortSignal.timeout(ms);
  return parent ? AbortSignal.any([timer, parent]) : timer;
}

/** A short description of a network failure for `CheckResult.error`. */
export function describeHttpError(err: unknown, timeoutMs: number, signal?: AbortSignal): string {
  const e = err as { name?: string; code?: string; message?: string };
  const reason = signal?.aborted ? (signal.reason as { name?: string } | undefined) : undefined;
  if (e?.name === 'TimeoutError' || reason?.name === 'TimeoutError') return `timed out after ${timeoutMs} ms`;
  if (signal?.aborted || e?.name === 'AbortError' || e?.code === 'UND_ERR_ABORTED') return 'aborted';
  return e?.message ?? String(err);
}
