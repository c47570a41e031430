import { asProviderFailure } from '../foundation/errors/provider-failure.js';
import { GatewayError } from '../foundation/errors/gateway-error.js';
import type { HttpClient } from '../foundation/lib/http-client.js';
import type { Clock } from '../foundation/lib/clock.js';
import { isObject, startsLikeJson } from '../foundation/lib/json.js';
import { redactSecrets } from '../foundation/lib/redact-secrets.js';
import { signalOf, type AbortSource } from '../foundation/lib/lazy-abort.js';
import type { CallContext, EndpointAdapter, ProviderAdapter, ProviderTarget } from '../providers/provider.js';
import { pickCommonFields } from '../foundation/spec/pick-common-fields.js';
import { FirstReplayed, mappedItems, RawItems, transcodedItems, type StreamGuard } from './stream-sources.js';
import { JsonAnswer, type Outcome } from './outcome.js';
import { StreamAnswer, type StreamItem } from './stream-answer.js';
import { streamFramingOf } from './stream-framing.js';
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
  const ctx: CallContext = new TargetCallContext(call.target, call.input, signal, deps);
  const building = call.endpoint.buildRequest(call.body, ctx);
  // Most providers build synchronously: no await (and no microtask turn) for them.
  const built = building instanceof Promise ? await building : building;
  const upstream = { url: built.url, method: built.method, headers: built.headers, body: built.body, signal };
  const started = performance.now();
  if (!call.input.stream) {
    // Non-streamed: the body is read whole by the HTTP client (no body stream).
    const res = await deps.http.sendBuffered(upstream, call.adapter.name);
    deps.observeUpstream?.(call.adapter.name, res.status, (res.headersAt - started) / 1000);
    if (res.status < 200 || res.status >= 300) throw providerError(call, res.status, res.body.toString('utf8'), res.headers);
    const raw = res.body;
    // A relayed body is checked only at its first byte (an HTML page from a proxy is not sent on as JSON).
    if (call.passthrough && !call.strict && startsLikeJson(raw))
      return {
        status: res.status,
        provider: call.adapter.name,
        path: call.path,
        retries: 0,
        cacheStatus: 'DISABLED',
        headers: {},
        json: new JsonAnswer({ raw }),
        model: modelOf(call.body),
      };
    let parsed: unknown;
    try {
      parsed = JSON.parse(raw.toString('utf8'));
    } catch {
      throw new GatewayError('provider_error', 'The provider answered with a body that is not JSON.', {
        provider: call.adapter.name,
        status: 502,
      });
    }
    let value = call.endpoint.mapResponse(parsed, call.body, ctx);
    if (call.strict) value = pickCommonFields(call.input.endpoint, value);
    return {
      status: res.status,
      provider: call.adapter.name,
      path: call.path,
      retries: 0,
      cacheStatus: 'DISABLED',
      headers: {},
      json: new JsonAnswer({ value }),
      model: isObject(value) && typeof value.model === 'string' ? value.model : modelOf(call.body),
    };
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
  const items: AsyncIterator<StreamItem> = transcoder
    ? transcodedItems(res.body, transcoder, guard)
    : passthrough
      ? new RawItems(res.body, framing, guard)
      : mappedItems(res.body, call.endpoint.createStreamMapper(call.body, ctx), call.strict ? call.input.endpoint : undefined, guard);
  const source = new FirstReplayed(items, await items.next());
  const includeUsage = isObject(call.input.body.stream_options) && call.input.body.stream_options.include_usage === true;
  const stream = new StreamAnswer(source, includeUsage, passthrough, framing, call.endpoint.addsStreamUsage === true);
  // One literal, as the JSON outcomes above (a spread of a shared part would add `stream` and `model` through the runtime).
  return {
    status: res.status,
    provider: call.adapter.name,
    path: call.path,
    retries: 0,
    cacheStatus: 'DISABLED',
    headers: {},
    stream,
    model: modelOf(call.body),
  };
}

/** Config keys of a target whose values are credentials (`api_key`, `cloud1_secret_access_key`, `cloud1_session_token`, ...). */
const CREDENTIAL_KEY = /(?:key|secret|token|password)(?:_id)?$/i;

/**
 * The provider's own error for a non-2xx answer, with the credentials of this call removed from its
 * message (a provider that echoes the key it was sent); `GatewayError.toBody` removes the known shapes.
 */
function providerError(
  call: TargetCall,
  status: number,
  text: string,
  headers: Record<string, string | string[] | undefined>,
): GatewayError {
  const err = call.adapter.mapError(status, text, headers);
  const known: string[] = call.target.apiKey ? [call.target.apiKey] : [];
  for (const [key, value] of Object.entries(call.target.config))
    if (typeof value === 'string' && CREDENTIAL_KEY.test(key)) known.push(value);
  err.message = redactSecrets(err.message, known);
  return asProviderFailure(err, call.adapter.name);
}

function modelOf(body: Record<string, unknown>): string | undefined {
  return typeof body.model === 'string' ? body.model : undefined;
}

/** The CallContext of one call: a lazy abort becomes a real signal only if the provider reads it (side calls: token exchanges). */
class TargetCallContext implements CallContext {
  readonly http: HttpClient;
  readonly clock: Clock;

  readonly stream: boolean;

  constructor(
    readonly target: ProviderTarget,
    private readonly input: RouteInput,
    private readonly abort: AbortSource,
    deps: CallDeps,
  ) {
    this.stream = input.stream;
    this.http = deps.http;
    this.clock = deps.clock;
  }

  sourceText(body: object): string | undefined {
    return body === this.input.body ? this.input.sourceText : undefined;
  }

  get signal(): AbortSignal {
    return signalOf(this.abort);
  }
}
