import type { Clock } from '../../foundation/lib/clock.js';
import type { HttpClient } from '../../foundation/lib/http-client.js';
import { isObject, tryParseJson } from '../../foundation/lib/json.js';
import type { LeafCall, LeafInterceptor } from '../../routing/execute.js';
import { routingSpanOf, type GatewaySpan } from '../../infra/observability/tracing.js';
import { JsonAnswer, type CacheStatus, type Outcome } from '../../routing/outcome.js';
import { StreamAnswer } from '../../routing/stream-answer.js';
import { AnswerAssembler } from './assemble-answer.js';
import type { Background } from './background.js';
import { isFresh, type CacheEntry, type CacheStore, type VectorIndex } from './cache-store.js';
import { exactKey, semanticKey, type KeyInput, type SemanticKey } from './cache-key.js';
import { embedText } from './embed-text.js';
import { replayChunks } from './replay-stream.js';

/** What the cache interceptor works with (built by `cache-capability.ts`). */
export interface CacheInterceptorDeps {
  store: CacheStore;
  index: VectorIndex;
  clock: Clock;
  http: HttpClient;
  /** Counts a degraded operation (backend unreachable, embedding failed). */
  degraded(what: string, err: unknown): void;
  /** Counts a lookup by its `x-gateway-cache-status`. */
  observe(status: CacheStatus): void;
  background: Background;
  embeddingModel: string;
  threshold: number;
  /** Bound of one embedding call, ms. */
  embedTimeoutMs: number;
}

/** Semantic candidates tried before giving up (a candidate's answer may have been evicted). */
const MAX_CANDIDATES = 3;

/**
 * The cache as a leaf interceptor, driven by the leaf's resolved `cache` setting. Exact hits first;
 * in semantic mode, then an embedding lookup in the request's bucket. Misses call the target and store
 * a successful answer off the response path (a stream once it completed, assembled into its JSON
 * form). Backend failures are counted and logged, and the request is answered as a MISS.
 */
export function createCacheInterceptor(deps: CacheInterceptorDeps): LeafInterceptor {
  const observed = (outcome: Outcome): Outcome => {
    deps.observe(outcome.cacheStatus);
    return outcome;
  };
  return (call, next) => {
    const settings = call.node.cache;
    // Fast path for leaves without a cache: no async frame of our own.
    if (!settings) return next().then(observed);
    return cached(call, next, settings);
  };

  async function cached(call: LeafCall, next: () => Promise<Outcome>, settings: NonNullable<LeafCall['node']['cache']>): Promise<Outcome> {
    const input: KeyInput = { workspaceId: call.input.workspaceId, endpoint: call.input.endpoint, target: call.target, body: call.body };
    const key = exactKey(input);
    const maxAgeMs = settings.maxAgeSeconds * 1000;
    const refresh = call.input.cacheForceRefresh;
    let backendUp = true;
    // Traced requests get a span over the lookup (not the provider call after a miss).
    const span = routingSpanOf(call.input.locals)?.child('cache lookup', 'internal', { 'gateway.cache.mode': settings.mode });
    if (!refresh) {
      const found = await read(deps, key, maxAgeMs);
      const exact = serve(found.entry, call, 'HIT');
      if (exact) return done(deps, exact, span);
      backendUp = found.ok;
    }
    const sem = settings.mode === 'semantic' ? semanticKey(input) : undefined;
    let vector: Float32Array | undefined;
    if (sem && !refresh && backendUp) {
      vector = await embed(deps, call, sem.text, AbortSignal.any([call.input.signal, AbortSignal.timeout(deps.embedTimeoutMs)]));
      const similar = vector && (await lookupSimilar(deps, call, sem.bucket, vector, maxAgeMs));
      if (similar) return done(deps, similar, span);
    }
    span?.set({ 'gateway.cache.status': refresh ? 'REFRESH' : 'MISS' });
    span?.end();
    const outcome = await next();
    outcome.cacheStatus = refresh ? 'REFRESH' : 'MISS';
    remember(deps, call, outcome, key, settings.maxAgeSeconds, sem, vector);
    return done(deps, outcome);
  }
}

function done(deps: CacheInterceptorDeps, outcome: Outcome, span?: GatewaySpan): Outcome {
  deps.observe(outcome.cacheStatus);
  span?.set({ 'gateway.cache.status': outcome.cacheStatus });
  span?.end();
  return outcome;
}

/** A fresh entry under `key`; `ok` is false when the backend failed (no semantic lookup is tried then). */
async function read(deps: CacheInterceptorDeps, key: string, maxAgeMs: number): Promise<{ ok: boolean; entry?: CacheEntry }> {
  try {
    const entry = await deps.store.get(key);
    return { ok: true, entry: entry && isFresh(entry, deps.clock.now(), maxAgeMs) ? entry : undefined };
  } catch (err) {
    deps.degraded('read', err);
    return { ok: false };
  }
}

async function embed(deps: CacheInterceptorDeps, call: LeafCall, text: string, signal: AbortSignal): Promise<Float32Array | undefined> {
  try {
    return await embedText(call.adapter, call.target, deps.embeddingModel, text, signal, deps);
  } catch (err) {
    if (call.input.signal.aborted) return undefined;
    deps.degraded('embedding', err);
    return undefined;
  }
}

async function lookupSimilar(
  deps: CacheInterceptorDeps,
  call: LeafCall,
  bucket: string,
  vector: Float32Array,
  maxAgeMs: number,
): Promise<Outcome | undefined> {
  let matches;
  try {
    matches = await deps.index.search(bucket, vector, deps.threshold);
  } catch (err) {
    deps.degraded('semantic search', err);
    return undefined;
  }
  for (const m of matches.slice(0, MAX_CANDIDATES)) {
    const served = serve((await read(deps, m.key, maxAgeMs)).entry, call, 'SEMANTIC HIT');
    if (served) return served;
  }
  return undefined;
}

/** An answer from a stored entry: its JSON bytes unchanged, or replayed as a stream of chunks. */
function serve(entry: CacheEntry | undefined, call: LeafCall, status: CacheStatus): Outcome | undefined {
  if (!entry) return undefined;
  const base = {
    status: 200,
    provider: call.adapter.name,
    path: call.path,
    retries: 0,
    cacheStatus: status,
    headers: {},
    model: entry.model,
  };
  if (!call.input.stream) return { ...base, json: new JsonAnswer({ raw: Buffer.from(entry.body, 'utf8') }) };
  const chunks = replayChunks(call.input.endpoint, tryParseJson(entry.body));
  if (!chunks) return undefined;
  const so = call.input.body.stream_options;
  const includeUsage = isObject(so) && so.include_usage === true;
  return { ...base, stream: new StreamAnswer(fromArray(chunks), includeUsage, false) };
}

async function* fromArray(chunks: Array<Record<string, unknown>>): AsyncGenerator<Record<string, unknown>> {
  yield* chunks;
}

/** Stores a successful answer (2xx, not 246) off the response path; a stream once it ended cleanly. */
function remember(
  deps: CacheInterceptorDeps,
  call: LeafCall,
  outcome: Outcome,
  key: string,
  maxAgeSeconds: number,
  sem: SemanticKey | undefined,
  vector: Float32Array | undefined,
): void {
  if (outcome.status < 200 || outcome.status >= 300 || outcome.status === 246) return;
  const write = (body: string) =>
    deps.background.run(
      async () => {
        const storedAt = deps.clock.now();
        const expiresAt = storedAt + maxAgeSeconds * 1000;
        await deps.store.set(key, { body, model: outcome.model, storedAt, expiresAt });
        if (!sem) return;
        const v = vector ?? (await embed(deps, call, sem.text, AbortSignal.timeout(deps.embedTimeoutMs)));
        if (v) await deps.index.add(sem.bucket, { key, vector: v, expiresAt });
      },
      (err) => deps.degraded('write', err),
    );
  if (outcome.json) {
    const bytes = outcome.json.bytes;
    write(bytes.toString('utf8'));
    return;
  }
  // Only chat and text-completion streams can be assembled into an answer and replayed.
  if (!outcome.stream || (call.input.endpoint !== 'chat' && call.input.endpoint !== 'completions')) return;
  const assembler = new AnswerAssembler(call.input.endpoint);
  const release = deps.background.hold();
  call.input.signal.addEventListener('abort', release, { once: true });
  outcome.stream.observe({
    onChunk: (chunk) => assembler.push(chunk),
    onEnd: (ok) => {
      call.input.signal.removeEventListener('abort', release);
      const answer = ok ? assembler.result() : undefined;
      if (answer) write(JSON.stringify(answer));
      release();
    },
  });
}
