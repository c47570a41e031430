import { GatewayError } from '../../foundation/errors/gateway-error.js';
import { discardBody, type HttpClient, type UpstreamResponse } from '../../foundation/lib/http-client.js';
import { isObject, tryParseJson } from '../../foundation/lib/json.js';
import type { CustomHostGuard } from '../../routing/custom-host-guard.js';

/** The largest agent card the gateway reads (1 MB). */
export const MAX_CARD_BYTES = 1024 * 1024;

/** The well-known paths of an agent card, below the agent server's URL, in the order they are tried. */
export const CARD_PATHS = ['.well-known/agent-card.json', '.well-known/agent.json'] as const;

/** What fetching a card needs. */
export interface CardFetch {
  http: HttpClient;
  guard: CustomHostGuard;
  /** The agent server's URL (its JSON-RPC endpoint); the card is read below it. */
  url: string;
  /** Headers sent with the request (the agent server's own, the caller's `A2A-Version`). */
  headers: Record<string, string>;
  /** The whole fetch, every attempt included, ends within this many milliseconds. */
  timeoutMs: number;
  /** A previous answer: its location and `ETag`, sent as `If-None-Match` to that location. */
  cached?: { location: string; etag: string };
}

/** A fetched card: the parsed JSON, where it came from and its `ETag`; or `notModified` for the cached one. */
export type FetchedCard = { notModified: true } | { notModified: false; card: Record<string, unknown>; location: string; etag?: string };

/** `<url>/<path>`, with exactly one `/` between them whatever the URL ends with (its query is dropped). */
export function cardUrl(url: string, path: string): string {
  const u = new URL(url);
  u.search = '';
  u.hash = '';
  u.pathname = `${u.pathname.replace(/\/+$/, '')}/${path}`;
  return u.toString();
}

/** Drops a body the gateway will not read (quietly: the HTTP client's `discardBody`). */
function discard(res: UpstreamResponse): void {
  discardBody(res.body);
}

function upstreamFault(message: string): GatewayError {
  return new GatewayError('provider_error', message, { status: 502, provider: 'a2a', retryable: false });
}

/** Reads a body up to `MAX_CARD_BYTES` (refusing a longer one as soon as it is known to be longer). */
async function readBounded(res: UpstreamResponse, where: string): Promise<Buffer> {
  const declared = Number(res.headers['content-length']);
  const tooLarge = () => upstreamFault(`The agent card at ${where} is larger than ${MAX_CARD_BYTES} bytes.`);
  if (Number.isFinite(declared) && declared > MAX_CARD_BYTES) {
    discard(res);
    throw tooLarge();
  }
  const chunks: Buffer[] = [];
  let length = 0;
  for await (const chunk of res.body) {
    length += (chunk as Buffer).length;
    if (length > MAX_CARD_BYTES) {
      discard(res);
      throw tooLarge();
    }
    chunks.push(chunk as Buffer);
  }
  return Buffer.concat(chunks, length);
}

/** Checks the shape the gateway relies on: an object with a `name` and a URL (v0.3 `url`, or a v1.0 interface's). */
export function validateCard(value: unknown, where: string): Record<string, unknown> {
  if (!isObject(value)) throw upstreamFault(`The agent card at ${where} is not a JSON object.`);
  if (typeof value.name !== 'string' || value.name.trim() === '') throw upstreamFault(`The agent card at ${where} has no name.`);
  const interfaces = Array.isArray(value.supportedInterfaces) ? value.supportedInterfaces : [];
  const hasUrl = typeof value.url === 'string' || interfaces.some((i) => isObject(i) && typeof i.url === 'string');
  if (!hasUrl) throw upstreamFault(`The agent card at ${where} has no URL (neither url nor supportedInterfaces[].url).`);
  return value;
}

/**
 * Fetches an agent server's card: `<url>/.well-known/agent-card.json`, then (on 404, 405 or 410)
 * `<url>/.well-known/agent.json`, through the custom-host guard and the guarded HTTP client, within
 * `timeoutMs` for everything, at most 1 MB, no redirects followed. The card must be JSON with a name
 * and a URL. Upstream faults are 502 `provider_error` (or `provider_unreachable`), a timeout 408
 * `request_timeout`.
 */
export async function fetchAgentCard(f: CardFetch): Promise<FetchedCard> {
  const deadline = AbortSignal.timeout(f.timeoutMs);
  const started = Date.now();
  const statuses: string[] = [];
  try {
    for (const path of CARD_PATHS) {
      const location = cardUrl(f.url, path);
      await f.guard.check(location);
      const conditional: Record<string, string> = f.cached?.location === location ? { 'if-none-match': f.cached.etag } : {};
      const remaining = Math.max(1, f.timeoutMs - (Date.now() - started));
      const res = await f.http.send(
        {
          url: location,
          method: 'GET',
          headers: { accept: 'application/json', ...f.headers, ...conditional },
          signal: deadline,
          headersTimeout: remaining,
          bodyTimeout: remaining,
        },
        'a2a',
      );
      if (res.status === 304 && f.cached?.location === location) {
        discard(res);
        return { notModified: true };
      }
      if (res.status === 404 || res.status === 405 || res.status === 410) {
        discard(res);
        statuses.push(`${location} answered ${res.status}`);
        continue;
      }
      if (res.status < 200 || res.status >= 300) {
        discard(res);
        throw upstreamFault(`The agent server answered ${res.status} for its card at ${location}.`);
      }
      const bytes = await readBounded(res, location);
      const parsed = tryParseJson(bytes.toString('utf8'));
      if (parsed === undefined) throw upstreamFault(`The agent card at ${location} is not JSON.`);
      const etag = typeof res.headers.etag === 'string' ? res.headers.etag : undefined;
      return { notModified: false, card: validateCard(parsed, location), location, ...(etag ? { etag } : {}) };
    }
  } catch (err) {
    // The overall deadline and undici's header/body timers (set to what remains of it) race: either may fire first.
    const timedOut = deadline.aborted || (err instanceof GatewayError && err.code === 'request_timeout');
    if (timedOut)
      throw new GatewayError('request_timeout', `The agent server did not send its card within ${f.timeoutMs} ms.`, { provider: 'a2a' });
    if (err instanceof GatewayError) throw err;
    throw upstreamFault(`The agent card could not be read: ${(err as Error).message}`);
  }
  throw upstreamFault(`The agent server has no agent card (${statuses.join('; ')}).`);
}
