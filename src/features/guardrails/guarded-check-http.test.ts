import { describe, expect, it } from 'vitest';
import { CustomHostGuard } from '../../routing/custom-host-guard.js';
import type { CheckHttp } from './check-http.js';
import { guardedCheckHttp } from './guarded-check-http.js';

describe('guardedCheckHttp', () => {
  const calls: string[] = [];
  const inner: CheckHttp = async (req) => {
    calls.push(req.url);
    return { status: 200, headers: {}, body: (async function* () {})() };
  };
  const http = guardedCheckHttp(inner, new CustomHostGuard(['trusted.local', '127.0.0.1']));
  const signal = new AbortController().signal;

  it('refuses private, loopback and link-local addresses that are not trusted, without calling out', async () => {
    for (const url of [
      'http://10.0.0.5/hook',
      'http://169.254.169.254/latest/meta-data',
      'http://[::1]:8080/x',
      'http://192.168.1.1/',
      'http://[::ffff:127.0.0.1]:8080/',
      'http://[::ffff:169.254.169.254]/',
      'http://[64:ff9b::7f00:1]/',
      'http://[fec0::1]/',
    ]) {
      await expect(http({ url, method: 'POST', signal })).rejects.toThrow(/private address/);
    }
    await expect(http({ url: 'file:///etc/passwd', method: 'GET', signal })).rejects.toThrow(/http or https/);
    expect(calls).toEqual([]);
  });

  it('lets trusted hosts and public addresses through', async () => {
    await http({ url: 'http://127.0.0.1:9/hook', method: 'POST', signal });
    await http({ url: 'https://93.184.216.34/x', method: 'GET', signal });
    expect(calls).toEqual(['http://127.0.0.1:9/hook', 'https://93.184.216.34/x']);
  });
});
