import { describe, expect, it } from 'vitest';
import { FakeClock } from '../../foundation/lib/clock.js';
import { createLogger } from '../observability/logger.js';
import { GatewayError } from '../../foundation/errors/gateway-error.js';
import { SecretResolver } from './secret-resolver.js';
import type { SecretSource } from './secret-source.js';
import { headerValueOf, resolveMappedHeaders } from './mapped-headers.js';

const source = (id: string, over: Partial<SecretSource> = {}): SecretSource => ({
  id,
  name: `ref ${id}`,
  organisationId: 'o',
  managerType: 'hashicorp_vault',
  auth: { vault_addr: 'http://x', token: 't' },
  path: id,
  key: null,
  version: 1,
  allowAllWorkspaces: true,
  allowedWorkspaces: [],
  ...over,
});

describe('header secret mappings at call time', () => {
  it('writes the value, a JSON member, or a template; refuses values that cannot be a header value', () => {
    expect(headerValueOf({ target_field: 'headers.X-Key', secret_reference_id: 'r' }, 'plain')).toBe('plain');
    expect(
      headerValueOf(
        { target_field: 'headers.Authorization', secret_reference_id: 'r', secret_key: 'token', value_format: 'Bearer {{secret}}' },
        '{"token":"t-1"}',
      ),
    ).toBe('Bearer t-1');
    expect(headerValueOf({ target_field: 'headers.X', secret_reference_id: 'r', value_format: 'json', secret_key: 'n' }, '{"n":5}')).toBe(
      '5',
    );
    // `$&` in a secret is written as it is, not as a replacement pattern.
    expect(headerValueOf({ target_field: 'headers.X', secret_reference_id: 'r', value_format: 'k={{secret}}' }, 'a$&b')).toBe('k=a$&b');
    expect(() => headerValueOf({ target_field: 'headers.X', secret_reference_id: 'r' }, 'line\r\nX-Evil: 1')).toThrow(/header 'X'/);
    expect(() => headerValueOf({ target_field: 'headers.X', secret_reference_id: 'r', secret_key: 'absent' }, '{"token":"t"}')).toThrow(
      /absent/,
    );
  });

  it('resolves through the resolver (one fetch, then the cache), refuses a reference not shared with the workspace, never echoes a value', async () => {
    let fetches = 0;
    const values: Record<string, string> = { a: 'secret-a-value', b: 'secret-b-value', bad: 'x\ny' };
    const resolver = new SecretResolver({
      context: { lookup: () => undefined, checkUrl: async () => undefined, timeoutMs: 1000 },
      ttlMs: 60_000,
      now: () => new FakeClock().now(),
      logger: createLogger('silent'),
      fetchers: { hashicorp_vault: async (s) => (fetches++, values[s.path] ?? Promise.reject(new Error('404 not found'))) },
    });
    const sources = new Map([
      ['a', source('a')],
      ['b', source('b', { allowAllWorkspaces: false, allowedWorkspaces: ['ws-2'] })],
      ['bad', source('bad')],
      ['gone', source('gone')],
    ]);
    const deps = { source: (id: string) => sources.get(id), resolver };
    const m = (ref: string) => [{ target_field: 'headers.X-Key', secret_reference_id: ref, value_format: 'Key {{secret}}' }];
    expect(await resolveMappedHeaders(deps, m('a'), 'ws-1')).toEqual({ 'X-Key': 'Key secret-a-value' });
    expect(await resolveMappedHeaders(deps, m('a'), 'ws-1')).toEqual({ 'X-Key': 'Key secret-a-value' });
    expect(fetches).toBe(1);
    for (const [ref, ws, reason] of [
      ['b', 'ws-1', 'not shared'],
      ['nope', 'ws-1', 'does not exist'],
      ['gone', 'ws-1', '404'],
      ['bad', 'ws-1', 'line break'],
    ] as const) {
      const err = await resolveMappedHeaders(deps, m(ref), ws).then(
        () => undefined,
        (e: unknown) => e,
      );
      expect(err, ref).toBeInstanceOf(GatewayError);
      expect((err as GatewayError).code).toBe('provider_unreachable');
      expect((err as GatewayError).message).toContain(reason);
      expect((err as GatewayError).message).not.toContain('x\ny');
    }
    expect(await resolveMappedHeaders(deps, m('b'), 'ws-2')).toEqual({ 'X-Key': 'Key secret-b-value' });
  });
});
