import { describe, expect, it } from 'vitest';
import { FakeClock } from '../../foundation/lib/clock.js';
import { createLogger } from '../observability/logger.js';
import { SecretResolver } from './secret-resolver.js';
import type { SecretSource } from './secret-source.js';

const source = (version = 1, key: string | null = null): SecretSource => ({
  id: 'ref-1',
  name: 'vault',
  organisationId: 'o',
  managerType: 'hashicorp_vault',
  auth: { vault_addr: 'http://x', token: 't' },
  path: 'p',
  key,
  version,
  allowAllWorkspaces: true,
  allowedWorkspaces: [],
});

function setup(fetch: () => Promise<string>) {
  const clock = new FakeClock();
  let calls = 0;
  const resolver = new SecretResolver({
    context: { lookup: () => undefined, checkUrl: async () => undefined, timeoutMs: 1000 },
    ttlMs: 60_000,
    now: () => clock.now(),
    logger: createLogger('silent'),
    fetchers: { hashicorp_vault: () => (calls++, fetch()) },
  });
  return { clock, resolver, calls: () => calls };
}

describe('SecretResolver', () => {
  it('caches for the TTL, shares one fetch in flight, and fetches a new version anew', async () => {
    let release!: (v: string) => void;
    const t = setup(() => new Promise((r) => (release = r)));
    const a = t.resolver.resolve(source());
    const b = t.resolver.resolve(source());
    release('s1');
    expect(await Promise.all([a, b])).toEqual(['s1', 's1']);
    expect(t.calls()).toBe(1);
    expect(await t.resolver.resolve(source())).toBe('s1');
    expect(t.calls()).toBe(1);
    expect(t.resolver.peek(source())).toBe('s1');
    t.clock.advance(60_001);
    const again = t.resolver.resolve(source());
    release('s2');
    expect(await again).toBe('s2');
    const edited = t.resolver.resolve(source(2));
    expect(t.resolver.peek(source(2))).toBeUndefined();
    release('s3');
    expect(await edited).toBe('s3');
  });

  it('stale-if-error: a failed refresh serves the cached value; with none it is 502 naming the reference', async () => {
    let fail = false;
    const t = setup(async () => {
      if (fail) throw new Error('connect ECONNREFUSED');
      return '{"api_key":"k1"}';
    });
    expect(await t.resolver.resolve(source(1, 'api_key'))).toBe('k1');
    fail = true;
    t.clock.advance(60_001);
    expect(await t.resolver.resolve(source(1, 'api_key'))).toBe('k1');
    expect(t.resolver.lastError('ref-1')).toContain('ECONNREFUSED');
    await expect(t.resolver.probe(source(1, 'api_key'))).rejects.toMatchObject({ status: 502, code: 'provider_unreachable' });
    await expect(t.resolver.resolve(source(2, 'api_key'))).rejects.toMatchObject({
      status: 502,
      message: expect.stringContaining("'vault' (ref-1)"),
    });
  });

  it('a JSON member that is missing is an error naming the key, not the value', async () => {
    const t = setup(async () => '{"other":"secret-value"}');
    const err = await t.resolver.resolve(source(1, 'api_key')).catch((e: Error) => e);
    expect(String((err as Error).message)).toContain("no member 'api_key'");
    expect(String((err as Error).message)).not.toContain('secret-value');
  });
});
