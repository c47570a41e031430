import { describe, expect, it } from 'vitest';
import type { RateLimitPolicy } from '../../infra/store/repos/rate-limit-policies.js';
import { compilePolicy } from './compiled-policy.js';
import { rateLimitHeaders, refusal, tightest, type PolicyReading } from './rate-limit-headers.js';

const NOW = Date.UTC(2026, 0, 7, 10, 20, 30, 250);

function reading(id: string, over: Partial<RateLimitPolicy>, count: number, resetAt: number): PolicyReading {
  const p: RateLimitPolicy = {
    id,
    organisation_id: 'o',
    workspace_id: 'w',
    name: null,
    type: 'requests',
    unit: 'rpm',
    value: 10,
    conditions: [],
    group_by: [],
    status: 'active',
    created_at: 0,
    updated_at: 0,
    ...over,
  };
  return { policy: compilePolicy(p), count, resetAt };
}

describe('rate-limit headers', () => {
  it('name the policy, its limit, what remains and the seconds to reset', () => {
    expect(rateLimitHeaders(reading('p1', { value: 10 }, 4, NOW + 29_750), NOW)).toEqual({
      'x-ratelimit-policy': 'p1',
      'x-ratelimit-limit': '10',
      'x-ratelimit-remaining': '6',
      'x-ratelimit-reset': '30',
    });
    expect(rateLimitHeaders(reading('p1', { value: 10 }, 12, NOW + 10), NOW)['x-ratelimit-remaining']).toBe('0');
    expect(rateLimitHeaders(reading('p1', { value: 10 }, 1, NOW + 10), NOW)['x-ratelimit-reset']).toBe('1');
  });

  it('the tightest policy is the one with the least remaining, then the smaller limit', () => {
    const a = reading('a', { value: 100 }, 10, NOW + 1000);
    const b = reading('b', { value: 20 }, 16, NOW + 1000);
    const c = reading('c', { value: 5 }, 0, NOW + 1000);
    const d = reading('d', { value: 6 }, 1, NOW + 1000);
    expect(tightest([a, b, c]).policy.id).toBe('b');
    expect(tightest([a, c]).policy.id).toBe('c');
    expect(tightest([d, c]).policy.id).toBe('c');
  });
});

describe('refusal', () => {
  it('is a 429 rate_limit_exceeded naming the refusing policy that resets last, with Retry-After', () => {
    const minute = reading('m', { value: 3 }, 3, NOW + 29_750);
    const day = reading('d', { value: 100, unit: 'rpd' }, 100, NOW + 3_600_000);
    const roomy = reading('h', { value: 1000, unit: 'rpw' }, 5, NOW + 9_000_000);
    const err = refusal([minute, day, roomy], NOW);
    expect(err.status).toBe(429);
    expect(err.code).toBe('rate_limit_exceeded');
    expect(err.headers).toEqual({
      'retry-after': '3600',
      'x-ratelimit-policy': 'd',
      'x-ratelimit-limit': '100',
      'x-ratelimit-remaining': '0',
      'x-ratelimit-reset': '3600',
    });
    expect(err.message).toBe('Rate limit exceeded: policy d allows 100 requests per day. Retry after 3600 s.');
    expect(err.toBody().error).toEqual({ message: err.message, type: 'rate_limit_error', param: null, code: 'rate_limit_exceeded' });
  });

  it('a tokens policy refuses once its budget is spent', () => {
    const tokens = reading('t', { type: 'tokens', value: 50 }, 50, NOW + 5000);
    const ok = reading('r', { value: 10 }, 2, NOW + 29_000);
    const err = refusal([ok, tokens], NOW);
    expect(err.headers?.['x-ratelimit-policy']).toBe('t');
    expect(err.headers?.['retry-after']).toBe('5');
    expect(err.message).toContain('50 tokens per minute');
  });
});
