import { describe, expect, it } from 'vitest';
import { before } from '../test-support.js';
import { requiredMetadataKeyPairs } from './required-metadata-key-pairs.js';

const md = (metadata: Record<string, string>) => before('x', { metadata });

describe('default.requiredMetadataKeyPairs', () => {
  const metadata = { env: 'prod', team: 'core' };

  it('all (default): every pair must match exactly', async () => {
    expect((await requiredMetadataKeyPairs.run(md(metadata), { metadataPairs: { env: 'prod', team: 'core' } })).verdict).toBe(true);
    const r = await requiredMetadataKeyPairs.run(md(metadata), { metadataPairs: { env: 'prod', team: 'web' } });
    expect(r.verdict).toBe(false);
    expect(r.data).toMatchObject({ matched: ['env'], unmatched: ['team'] });
  });

  it('any and none', async () => {
    expect(
      (await requiredMetadataKeyPairs.run(md(metadata), { metadataPairs: { env: 'dev', team: 'core' }, operator: 'any' })).verdict,
    ).toBe(true);
    expect((await requiredMetadataKeyPairs.run(md(metadata), { metadataPairs: { env: 'dev' }, operator: 'any' })).verdict).toBe(false);
    expect((await requiredMetadataKeyPairs.run(md(metadata), { metadataPairs: { env: 'dev' }, operator: 'none' })).verdict).toBe(true);
    expect((await requiredMetadataKeyPairs.run(md(metadata), { metadataPairs: { env: 'prod' }, operator: 'none' })).verdict).toBe(false);
  });

  it('runs before the request only', () => {
    expect(requiredMetadataKeyPairs.phases).toEqual(['beforeRequestHook']);
  });

  it('rejects bad parameters', () => {
    expect(() => requiredMetadataKeyPairs.validateParams({})).toThrow(/default\.requiredMetadataKeyPairs\.metadataPairs: is required/);
    expect(() => requiredMetadataKeyPairs.validateParams({ metadataPairs: ['a'] })).toThrow(/metadataPairs: must be an object/);
    expect(() => requiredMetadataKeyPairs.validateParams({ metadataPairs: {} })).toThrow(/metadataPairs: must have at least one key/);
    expect(() => requiredMetadataKeyPairs.validateParams({ metadataPairs: { env: { a: 1 } } })).toThrow(
      /metadataPairs\.env: must be a string/,
    );
    expect(() => requiredMetadataKeyPairs.validateParams({ metadataPairs: { env: 'a' }, operator: 'x' })).toThrow(
      /operator: must be one of/,
    );
  });
});
