import { describe, expect, it } from 'vitest';
import { before } from '../test-support.js';
import { allowedRequestTypes } from './allowed-request-types.js';

describe('default.allowedRequestTypes', () => {
  it('passes for an allowed endpoint and fails for another', async () => {
    expect((await allowedRequestTypes.run(before('x', { endpoint: 'chat' }), { allowedTypes: ['chat', 'embeddings'] })).verdict).toBe(true);
    const r = await allowedRequestTypes.run(before('x', { endpoint: 'images' }), { allowedTypes: ['chat'] });
    expect(r.verdict).toBe(false);
    expect(r.data).toMatchObject({ endpoint: 'images' });
  });

  it('accepts aliases such as chatComplete and embed', async () => {
    expect((await allowedRequestTypes.run(before('x', { endpoint: 'embeddings' }), { allowedTypes: ['embed'] })).verdict).toBe(true);
  });

  it('rejects bad parameters', () => {
    expect(() => allowedRequestTypes.validateParams({})).toThrow(/default\.allowedRequestTypes\.allowedTypes: is required/);
  });
});
