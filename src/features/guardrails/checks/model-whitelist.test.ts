import { describe, expect, it } from 'vitest';
import { before } from '../test-support.js';
import { modelWhitelist } from './model-whitelist.js';

describe('default.modelWhitelist', () => {
  it('passes for a listed model and fails for another', async () => {
    expect((await modelWhitelist.run(before('hi', { model: 'gpt-4o-mini' }), { models: ['gpt-4o-mini', 'x'] })).verdict).toBe(true);
    expect((await modelWhitelist.run(before('hi', { model: 'gpt-4o' }), { models: ['gpt-4o-mini'] })).verdict).toBe(false);
  });

  it('reads the body model when request.model is absent, supports a prefix wildcard, fails without a model', async () => {
    expect(
      (await modelWhitelist.run(before('hi', { body: { model: 'claude-3-haiku', messages: [] } }), { models: ['claude-3*'] })).verdict,
    ).toBe(true);
    expect((await modelWhitelist.run(before('hi'), { models: ['a'] })).verdict).toBe(false);
  });

  it('rejects bad parameters', () => {
    expect(() => modelWhitelist.validateParams({ models: 'gpt-4o' })).toThrow(/default\.modelWhitelist\.models: must be a non-empty array/);
  });
});
