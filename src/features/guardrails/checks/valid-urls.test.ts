import { describe, expect, it } from 'vitest';
import { after, before } from '../test-support.js';
import { createValidUrls, findUrls, isValidUrl, validUrls } from './valid-urls.js';

describe('default.validUrls', () => {
  it('extracts URLs without trailing punctuation', () => {
    expect(findUrls('See https://example.com/a. Also (http://x.org/b) and [doc](https://d.io/p_(1)).')).toEqual([
      'https://example.com/a',
      'http://x.org/b',
      'https://d.io/p_(1)',
    ]);
  });

  it('judges syntax', () => {
    expect(isValidUrl('https://example.com/path?q=1')).toBe(true);
    expect(isValidUrl('http://127.0.0.1:8080/')).toBe(true);
    expect(isValidUrl('http://localhost:3000')).toBe(true);
    expect(isValidUrl('https://exa')).toBe(false);
    expect(isValidUrl('https://-bad-.com')).toBe(false);
    expect(isValidUrl('http://300.1.1.1')).toBe(false);
    expect(isValidUrl('https://example.c0m')).toBe(false);
  });

  it('passes when every URL is valid, fails on one invalid URL, passes without URLs', async () => {
    expect((await validUrls.run(after('Docs: https://nodejs.org/api and https://www.iana.org.'), {})).verdict).toBe(true);
    const r = await validUrls.run(after('Broken: https://exa mple.com'), {});
    expect(r.verdict).toBe(false);
    expect(r.data).toMatchObject({ invalid: ['https://exa'] });
    expect((await validUrls.run(before('no links'), {})).verdict).toBe(true);
  });

  it('with onlyDNS, fails when a host does not resolve (injected lookup)', async () => {
    const looked: string[] = [];
    const check = createValidUrls(async (host) => {
      looked.push(host);
      if (host !== 'good.example') throw new Error('ENOTFOUND');
    });
    expect((await check.run(after('https://good.example/x https://good.example/y'), { onlyDNS: true })).verdict).toBe(true);
    expect(looked).toEqual(['good.example']);
    const r = await check.run(after('https://good.example and https://dead.example/z'), { onlyDNS: true });
    expect(r.verdict).toBe(false);
    expect(r.data).toMatchObject({ invalid: ['https://dead.example/z'] });
    expect((await check.run(after('https://dead.example/z'), { onlyDNS: false })).verdict).toBe(true);
  });

  it('with onlyDNS, resolves through node:dns (localhost resolves; .invalid never does)', async () => {
    expect((await validUrls.run(after('http://localhost:1/'), { onlyDNS: true })).verdict).toBe(true);
    expect((await validUrls.run(after('https://no-such-host.invalid/'), { onlyDNS: true })).verdict).toBe(false);
  });

  it('rejects bad parameters', () => {
    expect(() => validUrls.validateParams({ onlyDNS: 'yes' })).toThrow(/default\.validUrls\.onlyDNS: must be a boolean/);
  });
});
