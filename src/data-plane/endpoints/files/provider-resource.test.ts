import { describe, expect, it } from 'vitest';
import { HttpClient } from '../../../foundation/lib/http-client.js';
import { systemClock } from '../../../foundation/lib/clock.js';
import { getProvider } from '../../../providers/registry.js';
import type { ProviderTarget } from '../../../providers/provider.js';

const ctx = (target: ProviderTarget) => ({
  target,
  stream: false,
  signal: new AbortController().signal,
  http: new HttpClient(),
  clock: systemClock,
});

describe('provider resource APIs', () => {
  it('openai: base URL path with Bearer auth', async () => {
    const api = getProvider('openai')!.resources!;
    expect(api.kinds).toEqual(['files', 'batches', 'fine_tuning']);
    const call = await api.buildCall(
      '/files?limit=2',
      ctx({ provider: 'openai', apiKey: 'sk', config: { compat_organization: 'org-1' }, forwardHeaders: {} }),
    );
    expect(call.url).toBe('https://api.openai.com/v1/files?limit=2');
    expect(call.headers).toMatchObject({ authorization: 'Bearer sk', 'openai-organization': 'org-1' });
    expect(call.headers['content-type']).toBeUndefined();
  });

  it('azure-openai: resource-level path with api-version and api-key', async () => {
    const api = getProvider('azure-openai')!.resources!;
    const target: ProviderTarget = {
      provider: 'azure-openai',
      apiKey: 'az',
      config: { resource_name: 'res', api_version: '2024-10-21' },
      forwardHeaders: {},
    };
    expect((await api.buildCall('/batches', ctx(target))).url).toBe('https://res.openai.azure.com/openai/batches?api-version=2024-10-21');
    const c = await api.buildCall('/fine_tuning/jobs?after=x', ctx(target));
    expect(c.url).toBe('https://res.openai.azure.com/openai/fine_tuning/jobs?after=x&api-version=2024-10-21');
    expect(c.headers['api-key']).toBe('az');
  });

  it('providers without these APIs have none', () => {
    expect(getProvider('anthropic')!.resources).toBeUndefined();
  });
});
