import { describe, expect, it } from 'vitest';
import { mapBedrockError } from './bedrock-error.js';
import validation from './__fixtures__/error-validation.json' with { type: 'json' };

describe('mapBedrockError', () => {
  it('keeps the status and message and takes the type from x-amzn-errortype', () => {
    const err = mapBedrockError(400, JSON.stringify(validation), {
      'x-amzn-errortype': 'ValidationException:http://internal.amazon.com/coral/com.amazon.bedrock/',
    });
    expect(err.status).toBe(400);
    expect(err.code).toBe('provider_error');
    expect(err.provider).toBe('bedrock');
    expect(err.message).toBe(validation.message);
    expect(err.toBody().error).toEqual({
      message: validation.message,
      type: 'invalid_request_error',
      param: null,
      code: 'ValidationException',
      provider: 'bedrock',
    });
  });

  it('reads __type from the body and keeps retry headers', () => {
    const err = mapBedrockError(429, JSON.stringify({ __type: 'com.amazon.bedrock#ThrottlingException', message: 'Too many requests' }), {
      'retry-after': '3',
    });
    expect(err.status).toBe(429);
    expect(err.publicCode).toBe('ThrottlingException');
    expect(err.type).toBe('rate_limit_error');
    expect(err.headers).toEqual({ 'retry-after': '3' });
    expect(err.retryable).toBe(true);
  });

  it('keeps Bedrock-specific statuses (424, 408) and copes with an empty body', () => {
    expect(mapBedrockError(424, '{"message":"Model error"}', { 'x-amzn-errortype': 'ModelErrorException' }).status).toBe(424);
    const empty = mapBedrockError(503, '', { 'x-amzn-errortype': 'ServiceUnavailableException' });
    expect(empty.status).toBe(503);
    expect(empty.message).toMatch(/ServiceUnavailableException/);
  });
});
