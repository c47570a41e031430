import { describe, expect, it } from 'vitest';
import { retryAfterMs, retryDelayMs, shouldRetry } from './retry-policy.js';
import { GatewayError } from '../foundation/errors/gateway-error.js';

const retry = { attempts: 3, onStatusCodes: new Set([429, 503]), useRetryAfter: true };

describe('retry policy', () => {
  it('parses retry-after-ms, Retry-After seconds and HTTP dates', () => {
    const now = Date.UTC(2026, 0, 1, 0, 0, 0);
    expect(retryAfterMs({ 'retry-after-ms': '250' }, now)).toBe(250);
    expect(retryAfterMs({ 'retry-after': '2' }, now)).toBe(2000);
    expect(retryAfterMs({ 'retry-after': new Date(now + 3000).toUTCString() }, now)).toBe(3000);
    expect(retryAfterMs({ 'retry-after': 'soon' }, now)).toBeUndefined();
    expect(retryAfterMs({}, now)).toBeUndefined();
  });

  it('uses the provider hint when asked, capped by the request timeout', () => {
    const err = new GatewayError('provider_error', 'x', { status: 429, headers: { 'retry-after': '10' } });
    expect(retryDelayMs(0, err, retry, 100, 3000, 0)).toBe(3000);
    expect(retryDelayMs(0, err, retry, 100, null, 0)).toBe(10000);
    expect(retryDelayMs(0, err, { ...retry, useRetryAfter: false }, 100, null, 0, () => 0)).toBe(50);
  });

  it('caps a huge Retry-After at 60 s without a request timeout, and at the timeout with one', () => {
    const huge = new GatewayError('provider_error', 'x', { status: 429, headers: { 'retry-after': '100000' } });
    expect(retryDelayMs(0, huge, retry, 100, null, 0)).toBe(60_000);
    expect(retryDelayMs(0, huge, retry, 100, 500, 0)).toBe(500);
    const hugeMs = new GatewayError('provider_error', 'x', { status: 429, headers: { 'retry-after-ms': '1e400' } });
    expect(retryDelayMs(0, hugeMs, retry, 100, null, 0, () => 0)).toBe(50);
  });

  it('backs off exponentially with jitter', () => {
    const err = new GatewayError('provider_error', 'x', { status: 503 });
    expect(retryDelayMs(0, err, retry, 100, null, 0, () => 1)).toBe(100);
    expect(retryDelayMs(3, err, retry, 100, null, 0, () => 1)).toBe(800);
    expect(retryDelayMs(3, err, retry, 100, null, 0, () => 0)).toBe(400);
    expect(retryDelayMs(20, err, retry, 100, null, 0, () => 1)).toBe(10000);
  });

  it('retries only listed statuses within the attempts', () => {
    expect(shouldRetry(new GatewayError('provider_error', 'x', { status: 503 }), retry, 0)).toBe(true);
    expect(shouldRetry(new GatewayError('provider_error', 'x', { status: 500 }), retry, 0)).toBe(false);
    expect(shouldRetry(new GatewayError('provider_error', 'x', { status: 503 }), retry, 3)).toBe(false);
    expect(shouldRetry(new GatewayError('provider_error', 'x', { status: 503 }), null, 0)).toBe(false);
  });
});
