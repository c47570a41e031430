import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { ERROR_CATALOGUE } from './catalogue.js';
import { GatewayError } from './gateway-error.js';
import { toGatewayError } from './to-gateway-error.js';

describe('error catalogue', () => {
  it('matches docs/errors.md row for row', () => {
    const doc = readFileSync(new URL('../../../docs/errors.md', import.meta.url), 'utf8');
    const rows = [...doc.matchAll(/^\| `([a-z_]+)` +\| (\d{3}) +\| ([a-z_]+) +\|/gm)].map((m) => [m[1], Number(m[2]), m[3]]);
    const catalogue = Object.entries(ERROR_CATALOGUE).map(([code, e]) => [code, e.status, e.type]);
    expect(rows).toEqual(catalogue);
  });

  it('renders the decisions.md shape', () => {
    const body = new GatewayError('invalid_config', 'bad', { param: 'config.x' }).toBody();
    expect(body).toEqual({ error: { message: 'bad', type: 'invalid_request_error', param: 'config.x', code: 'invalid_config' } });
    const provider = new GatewayError('provider_error', 'nope', {
      status: 429,
      provider: 'openai',
      publicCode: 'rate_limit',
      type: 'requests',
    }).toBody();
    expect(provider.error).toEqual({ message: 'nope', type: 'requests', param: null, code: 'rate_limit', provider: 'openai' });
  });

  it('maps Fastify and unknown errors', () => {
    expect(toGatewayError({ code: 'FST_ERR_CTP_BODY_TOO_LARGE', statusCode: 413 }).status).toBe(413);
    expect(toGatewayError({ code: 'FST_ERR_CTP_INVALID_MEDIA_TYPE', statusCode: 415 }).code).toBe('unsupported_media_type');
    const v = toGatewayError({
      validation: [{ instancePath: '/messages/0', message: 'must have required property', params: { missingProperty: 'role' } }],
      validationContext: 'body',
    });
    expect(v.param).toBe('body.messages.0.role');
    expect(v.status).toBe(400);
    expect(toGatewayError({ code: 'FST_ERR_BAD_URL', statusCode: 400 }).code).toBe('invalid_request');
    expect(toGatewayError({ code: 'FST_ERR_MAX_PARAM_LENGTH', statusCode: 414 }).code).toBe('uri_too_long');
    expect(toGatewayError({ code: 'HPE_HEADER_OVERFLOW' }).status).toBe(431);
    expect(toGatewayError({ code: 'HPE_INVALID_METHOD' }).status).toBe(400);
    let overflow: unknown;
    const recurse = (n: number): number => recurse(n + 1) + 1;
    try {
      recurse(0);
    } catch (err) {
      overflow = err;
    }
    expect(toGatewayError(overflow)).toMatchObject({ status: 400, code: 'invalid_request', message: 'The request is nested too deeply.' });
    let uri: unknown;
    try {
      encodeURIComponent('file-\uD800');
    } catch (err) {
      uri = err;
    }
    expect(toGatewayError(uri)).toMatchObject({ status: 400, code: 'invalid_request' });
    expect(toGatewayError(new RangeError('Invalid array length')).status).toBe(500);
    const unknown = toGatewayError(new Error('boom'));
    expect(unknown.status).toBe(500);
    expect(unknown.message).toBe('Internal error.');
  });
});
