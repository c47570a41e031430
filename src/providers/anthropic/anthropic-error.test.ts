import { describe, expect, it } from 'vitest';
import { readFileSync } from 'node:fs';
import { anthropicErrorStatus, mapAnthropicError } from './anthropic-error.js';

const fixture = (name: string): string => readFileSync(new URL(`./__fixtures__/${name}`, import.meta.url), 'utf8');

describe('mapAnthropicError', () => {
  it('keeps status, message and error type, and adds the provider', () => {
    const err = mapAnthropicError('anthropic', 529, fixture('error-overloaded.json'));
    expect(err.code).toBe('provider_error');
    expect(err.status).toBe(529);
    expect(err.retryable).toBe(true);
    expect(err.toBody()).toEqual({
      error: { message: 'Overloaded', type: 'overloaded_error', param: null, code: null, provider: 'anthropic' },
    });
  });

  it('maps a 400 as not retryable and keeps retry-after on a 429', () => {
    const e400 = mapAnthropicError('anthropic', 400, fixture('error-invalid-request.json'));
    expect(e400).toMatchObject({ status: 400, type: 'invalid_request_error', message: 'max_tokens: Field required', retryable: false });
    const e429 = mapAnthropicError(
      'anthropic',
      429,
      JSON.stringify({ type: 'error', error: { type: 'rate_limit_error', message: 'slow down' } }),
      { 'retry-after': '7' },
    );
    expect(e429.headers).toEqual({ 'retry-after': '7' });
    expect(e429.type).toBe('rate_limit_error');
  });

  it('keeps a plain-text body as the message', () => {
    const err = mapAnthropicError('vertex-ai', 502, 'upstream connect error');
    expect(err).toMatchObject({ status: 502, message: 'upstream connect error', type: 'server_error', provider: 'vertex-ai' });
    expect(mapAnthropicError('anthropic', 500, '').message).toBe('The provider answered with status 500.');
  });

  it('knows the documented status of each error type', () => {
    expect(anthropicErrorStatus('overloaded_error')).toBe(529);
    expect(anthropicErrorStatus('rate_limit_error')).toBe(429);
    expect(anthropicErrorStatus('api_error')).toBe(500);
    expect(anthropicErrorStatus('mystery')).toBe(502);
  });
});
