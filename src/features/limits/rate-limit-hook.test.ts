import { describe, expect, it } from 'vitest';
import { pino } from 'pino';
import { FakeClock } from '../../foundation/lib/clock.js';
import { Metrics } from '../../infra/observability/metrics.js';
import { JsonAnswer, type Outcome } from '../../routing/outcome.js';
import type { Runtime } from '../../runtime/runtime.js';
import type { RuntimeSnapshot } from '../../runtime/snapshot.js';
import type { CompletedRequest, DataPlaneRequest } from '../../data-plane/pipeline/data-plane-hook.js';
import type { RateLimitPolicy } from '../../infra/store/repos/rate-limit-policies.js';
import { compilePolicy } from './compiled-policy.js';
import type { RateCounterStore } from './counter-store.js';
import { estimateTokens, type StreamTextTally } from './estimate-tokens.js';
import { MemoryCounterStore } from './memory-counter-store.js';
import { createRateLimitHook } from './rate-limit-hook.js';
import { RATE_LIMIT_SECTION } from './rate-limit-section.js';

const T0 = Date.UTC(2026, 0, 7, 10, 20, 30, 250);

function setup(counters: RateCounterStore, policies: Array<Partial<RateLimitPolicy>>) {
  const compiled = policies.map((p, i) =>
    compilePolicy({
      id: `p${i}`,
      organisation_id: 'o',
      workspace_id: 'ws',
      name: null,
      type: 'requests',
      unit: 'rpm',
      value: 10,
      conditions: [],
      group_by: [],
      status: 'active',
      created_at: 0,
      updated_at: 0,
      ...p,
    }),
  );
  const snapshot = {
    workspacesById: new Map(),
    virtualKeys: new Map(),
    sections: new Map([[RATE_LIMIT_SECTION, { byWorkspace: new Map([['ws', compiled]]) }]]),
  } as unknown as RuntimeSnapshot;
  const metrics = new Metrics();
  const counted: number[] = [];
  const hook = createRateLimitHook({
    runtime: { current: snapshot } as Runtime,
    counters,
    clock: new FakeClock(T0),
    logger: pino({ level: 'silent' }),
    metrics,
    tallies: new WeakMap<object, StreamTextTally>(),
    onCounted: (n) => counted.push(n),
  });
  return { hook, metrics, counted };
}

function request(): DataPlaneRequest {
  return {
    ctx: { requestId: 'r', traceId: 't', startedAt: 0, organisationId: 'o', workspaceId: 'ws' },
    endpoint: 'chat',
    body: { model: 'gpt-4o', messages: [{ role: 'user', content: 'hello there' }] },
    stream: false,
    metadata: {},
    headers: {},
    config: null,
    responseHeaders: {},
    locals: {},
  };
}

function done(outcome: Partial<Outcome>, usage?: CompletedRequest['usage']): CompletedRequest {
  return {
    status: 200,
    outcome: { status: 200, provider: 'openai', path: 'config', retries: 0, cacheStatus: 'MISS', headers: {}, ...outcome },
    trace: { retries: 0, attempts: [] },
    usage,
    latencyMs: 1,
  };
}

const settle = () => new Promise((r) => setTimeout(r, 50));

async function waitFor(check: () => boolean): Promise<void> {
  const deadline = Date.now() + 5000;
  while (!check()) {
    if (Date.now() > deadline) throw new Error('timed out');
    await new Promise((r) => setTimeout(r, 10));
  }
}

describe('rate-limit hook', () => {
  it('counts usage tokens after the answer; a cache hit counts none', async () => {
    const { hook, counted } = setup(new MemoryCounterStore(new FakeClock(T0)), [{ type: 'tokens', value: 100 }]);
    const dp = request();
    await hook.before!(dp);
    expect(dp.responseHeaders['x-ratelimit-remaining']).toBe('100');
    hook.after!(dp, done({}, { prompt_tokens: 7, completion_tokens: 3, total_tokens: 10 }));
    const hit = request();
    await hook.before!(hit);
    hook.after!(hit, done({ cacheStatus: 'HIT' }, { prompt_tokens: 7, completion_tokens: 3, total_tokens: 10 }));
    await settle();
    expect(counted).toEqual([10]);
    const next = request();
    await hook.before!(next);
    expect(next.responseHeaders['x-ratelimit-remaining']).toBe('90');
  });

  it('estimates the tokens of a JSON answer without usage from the request and the answer text', async () => {
    const { hook, counted } = setup(new MemoryCounterStore(new FakeClock(T0)), [{ type: 'tokens', value: 100 }]);
    const dp = request();
    await hook.before!(dp);
    const json = new JsonAnswer({ value: { choices: [{ index: 0, message: { role: 'assistant', content: 'general kenobi' } }] } });
    hook.after!(dp, done({ json }));
    await waitFor(() => counted.length > 0);
    expect(counted).toEqual([await estimateTokens(dp.body, 'general kenobi')]);
  });

  it('fails open when the counters throw: admitted, no headers, a degraded metric', async () => {
    const broken: RateCounterStore = {
      admit: () => Promise.reject(new Error('Connection is closed.')),
      add: () => Promise.reject(new Error('Connection is closed.')),
      close: async () => {},
    };
    const { hook, metrics } = setup(broken, [{ value: 0 }, { type: 'tokens', value: 5 }]);
    const dp = request();
    await expect(hook.before!(dp)).resolves.toBeUndefined();
    expect(dp.responseHeaders).toEqual({});
    hook.after!(dp, done({}, { prompt_tokens: 1, completion_tokens: 1, total_tokens: 2 }));
    await settle();
    const value = (await metrics.warnings.get()).values.find((v) => v.labels.component === 'rate-limit')?.value;
    expect(value).toBe(2);
  });

  it('requests without a matching policy are left alone', async () => {
    const { hook } = setup(new MemoryCounterStore(new FakeClock(T0)), [{ value: 0, conditions: [{ key: 'model', value: 'o3' }] }]);
    const dp = request();
    await hook.before!(dp);
    expect(dp.responseHeaders).toEqual({});
    // Nothing kept for `after` (the request's facts, read for matching, may be).
    expect(dp.locals.rateLimits).toBeUndefined();
  });
});
