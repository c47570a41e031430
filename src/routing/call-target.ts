import { asProviderFailure } from '../errors/provider-failure.js';
import { GatewayError } from '../errors/gateway-error.js';
import type { HttpClient } from '../lib/http-client.js';
import type { Clock } from '../lib/clock.js';
import { isObject } from '../lib/json.js';
import { redactSecrets } from '../lib/redact-secrets.js';
import { signalOf, type AbortSource } from '../lib/lazy-abort.js';
import type { CallContext, EndpointAdapter, ProviderAdapter, ProviderTarget, StreamMapper } from '../providers/provider.js';
import { pickCommonFields } from '../spec/pick-common-fields.js';
import { JsonAnswer, type Outcome } from './outcome.js';
import { StreamAnswer, type StreamItem } from './stream-answer.js';
import { streamFramingOf, type StreamFraming } from './stream-framing.js';
import type { RouteInput } from './route-input.js';

/** Everything one call to one target needs. */
export interface TargetCall {
  adapter: ProviderAdapter;
  endpoint: EndpointAdapter<Record<string, unknown>, unknown, unknown>;
  target: ProviderTarget;
  /** Body after `override_params`. */
  body: Record<string, unknown>;
  input: RouteInput;
  /** Whether answer bytes may pass through unchanged. */
  passthrough: boolean;
  /** Strip non-common fields from answers. */
  strict: boolean;
  path: string;
}

export interface CallDeps {
  http: HttpClient;
  clock: Clock;
  observeUpstream?: (provider: string, status: number, seconds: number) => void;
}

/**
 * Makes one call to a provider and returns its answer in the common schema. Throws a GatewayError
 * for a non-2xx answer (mapped by the provider, status kept), a network failure or an abort.
 * For a stream, resolves only once the first body chunk arrived, so a stream that stalls before its
 * first chunk fails here (and can fall back) instead of after the client saw a 200.
 */
export async function callTarget(call: TargetCall, signal: AbortSource, deps: CallDeps): Promise<Outcome> {
  const ctx: CallContext = new TargetCallContext(call.target, call.input.stream, signal, deps);
  const built = await call.endpoint.buildRequest(call.body, ctx);
  const upstream = { url: built.url, method: built.method, headers: built.headers, body: built.body, signal };
  const started = performance.now();
  if (!call.input.stream) {
    // Non-streamed: the body is read whole by the HTTP client (no body stream).
    const res = await deps.http.sendBuffered(upstream, call.adapter.name);
    deps.observeUpstream?.(call.adapter.name, res.status, (res.headersAt - started) / 1000);
    if (res.status < 200 || res.status >= 300) throw providerError(call, res.status, res.body.toString('utf8'), res.headers);
    const raw = res.body;
    if (call.passthrough && !call.strict) return { status: res.status, provider: call.adapter.name, path: call.path, retries: 0, cacheStatus: 'DISABLED', headers: {}, json: new JsonAnswer({ raw }), model: modelOf(call.body) };
    let parsed: unknown;
    try {
      parsed = JSON.parse(raw.toString('utf8'));
    } catch {
      throw new GatewayError('provider_error', 'The provider answered with a body that is not JSON.', { provider: call.adapter.name, status: 502 });
    }
    let value = call.endpoint.mapResponse(parsed, call.body, ctx);
    if (call.strict) value = pickCommonFields(call.input.endpoint, value);
    return { status: res.status, provider: call.adapter.name, path: call.path, retries: 0, cacheStatus: 'DISABLED', headers: {}, json: new JsonAnswer({ value }), model: isObject(value) && typeof value.model === 'string' ? value.model : modelOf(call.body) };
  }
  const res = await deps.http.sendStreamed(upstream, call.adapter.name);
  deps.observeUpstream?.(call.adapter.name, res.status, (performance.now() - started) / 1000);
  if (res.status < 200 || res.status >= 300) {
    const text = await res.body.text().catch(() => '');
    throw providerError(call, res.status, text, res.headers);
  }
  if (!call.endpoint.createStreamMapper) {
    res.body.destroy();
    throw new GatewayError('invalid_request', `Provider '${call.adapter.name}' cannot stream ${call.input.endpoint}.`, { param: 'stream' });
  }
  const passthrough = call.passthrough && !call.strict;
  const framing = streamFramingOf(call.input.endpoint);
  const transcoder = passthrough ? call.endpoint.createStreamTranscoder?.(call.body, ctx) : undefined;
  const guard: StreamGuard = { signal, provider: call.adapter.name };
  const items = transcoder ? transcodedItems(res.body, transcoder, guard) : passthrough ? rawItems(res.body, framing, guard) : mappedItems(res.body, call.endpoint.createStreamMapper(call.body, ctx), call, guard);
  const iterator = items[Symbol.asyncIterator]();
  const first = await iterator.next();
  const source: AsyncIterable<StreamItem> = {
    [Symbol.asyncIterator]: () => {
      let sentFirst = false;
      return {
        next: () => {
          if (!sentFirst) {
            sentFirst = true;
            return Promise.resolve(first);
          }
          return iterator.next();
        },
        return: (v?: unknown) => iterator.return?.(v) ?? Promise.resolve({ done: true, value: undefined }),
      };
    },
  };
  const includeUsage = isObject(call.input.body.stream_options) && call.input.body.stream_options.include_usage === true;
  const stream = new StreamAnswer(source, includeUsage, passthrough, framing, call.endpoint.addsStreamUsage === true);
  // One literal, as the JSON outcomes above (a spread of a shared part would add `stream` and `model` through the runtime).
  return { status: res.status, provider: call.adapter.name, path: call.path, retries: 0, cacheStatus: 'DISABLED', headers: {}, stream, model: modelOf(call.body) };
}

/** Config keys of a target whose values are credentials (`api_key`, `cloud1_secret_access_key`, `cloud1_session_token`, ...). */
const CREDENTIAL_KEY = /(?:key|secret|token|password)(?:_id)?$/i;

/**
 * The provider's own error for a non-2xx answer, with the credentials of this call removed from its
 * message (a provider that echoes the key it was sent); `GatewayError.toBody` removes the known shapes.
 */
function providerError(call: TargetCall, status: number, text: string, headers: Record<string, string | string[] | undefined>): GatewayError {
  const err = call.adapter.mapError(status, text, headers);
  const known: string[] = call.target.apiKey ? [call.target.apiKey] : [];
  for (const [key, value] of Object.entries(call.target.config)) if (typeof value === 'string' && CREDENTIAL_KEY.test(key)) known.push(value);
  err.message = redactSecrets(err.message, known);
  return asProviderFailure(err, call.adapter.name);
}

function modelOf(body: Record<string, unknown>): string | undefined {
  return typeof body.model === 'string' ? body.model : undefined;
}

/** What a stream's failures are told apart by: the call's abort signal and the provider's name. */
interface StreamGuard {
  signal: { aborted: boolean; reason: unknown };
  provider: string;
}

/**
 * A failure while reading a stream as a catalogue error: a timeout (408), the client gone (499) or an
 * upstream that died (502). Each stream source below catches its own failures with it: a generator
 * wrapping the source only for that cost an async-generator step per chunk.
 */
function streamFailure(err: unknown, { signal, provider }: StreamGuard): GatewayError {
  if (err instanceof GatewayError) return err;
  if (signal.aborted && signal.reason instanceof Error && signal.reason.message === 'request timeout') {
    return new GatewayError('request_timeout', 'The answer did not complete within the request timeout.', { provider });
  }
  if (signal.aborted) return new GatewayError('client_closed_request', undefined, { provider });
  return new GatewayError('provider_error', `The provider's stream broke off: ${(err as Error).message ?? 'connection lost'}`, { provider, status: 502 });
}

async function* rawItems(body: AsyncIterable<Uint8Array>, framing: StreamFraming, guard: StreamGuard): AsyncGenerator<StreamItem> {
  // The last 32 bytes of the stream, decoded once at the end (chunks are not reused, holding one is safe).
  let last: Uint8Array = new Uint8Array(0);
  try {
    for await (const chunk of body) {
      last = chunk.length >= 32 || last.length === 0 ? chunk : Buffer.concat([last.subarray(-32), chunk]).subarray(-32);
      yield chunk;
    }
  } catch (err) {
    throw streamFailure(err, guard);
  }
  const tail = Buffer.from(last.buffer, last.byteOffset, last.length).subarray(-32).toString('latin1');
  if (!framing.complete(tail)) throw new GatewayError('provider_error', 'The provider closed the stream before it was complete.', { status: 502 });
}

/** Upstream bytes re-framed by the provider's transcoder; its `end()` checks the stream completed. */
async function* transcodedItems(body: AsyncIterable<Uint8Array>, transcoder: StreamMapper<Uint8Array>, guard: StreamGuard): AsyncGenerator<StreamItem> {
  try {
    for await (const chunk of body) yield* transcoder.push(chunk);
    yield* transcoder.end();
  } catch (err) {
    throw streamFailure(err, guard);
  }
}

async function* mappedItems(body: AsyncIterable<Uint8Array>, mapper: StreamMapper<unknown>, call: TargetCall, guard: StreamGuard): AsyncGenerator<StreamItem> {
  try {
    for await (const chunk of body) {
      for (const out of mapper.push(chunk)) yield prepare(out, call);
    }
    for (const out of mapper.end()) yield prepare(out, call);
  } catch (err) {
    throw streamFailure(err, guard);
  }
}

function prepare(chunk: unknown, call: TargetCall): Record<string, unknown> {
  const value = call.strict ? pickCommonFields(call.input.endpoint, chunk) : chunk;
  return value as Record<string, unknown>;
}

/** The CallContext of one call: a lazy abort becomes a real signal only if the provider reads it (side calls: token exchanges). */
class TargetCallContext implements CallContext {
  readonly http: HttpClient;
  readonly clock: Clock;

  constructor(
    readonly target: ProviderTarget,
    readonly stream: boolean,
    private readonly abort: AbortSource,
    deps: CallDeps,
  ) {
    this.http = deps.http;
    this.clock = deps.clock;
  }

  get signal(): AbortSignal {
    return signalOf(this.abort);
  }
}
