import { describe, expect, it } from 'vitest';
import { before } from '../test-support.js';
import { requiredMetadataKeys } from './required-metadata-keys.js';

const md = (metadata: Record<string, string>) => before('x', { metadata });

describe('default.requiredMetadataKeys', () => {
  const metadata = { user_id: 'u1', team: 'core', 'x-env': 'prod' };

  it('exact (default) with all (default), any and none', async () => {
    expect((await requiredMetadataKeys.run(md(metadata), { metadataKeys: ['user_id', 'team'] })).verdict).toBe(true);
    const r = await requiredMetadataKeys.run(md(metadata), { metadataKeys: ['user_id', 'project'] });
    expect(r.verdict).toBe(false);
    expect(r.data).toMatchObject({ missing: ['project'] });
    expect((await requiredMetadataKeys.run(md(metadata), { metadataKeys: ['project', 'team'], operator: 'any' })).verdict).toBe(true);
    expect((await requiredMetadataKeys.run(md(metadata), { metadataKeys: ['debug'], operator: 'none' })).verdict).toBe(true);
    expect((await requiredMetadataKeys.run(md(metadata), { metadataKeys: ['team'], operator: 'none' })).verdict).toBe(false);
    expect((await requiredMetadataKeys.run(md(metadata), { metadataKeys: ['user'] })).verdict).toBe(false);
  });

  it('contains, containsAll and regex match types', async () => {
    expect((await requiredMetadataKeys.run(md(metadata), { metadataKeys: ['user'], matchType: 'contains' })).verdict).toBe(true);
    expect((await requiredMetadataKeys.run(md(metadata), { metadataKeys: ['nope'], matchType: 'contains' })).verdict).toBe(false);
    expect((await requiredMetadataKeys.run(md(metadata), { metadataKeys: [['user', 'id']], matchType: 'containsAll' })).verdict).toBe(true);
    expect((await requiredMetadataKeys.run(md(metadata), { metadataKeys: [['user', 'team']], matchType: 'containsAll' })).verdict).toBe(
      false,
    );
    expect((await requiredMetadataKeys.run(md(metadata), { metadataKeys: ['^x-'], matchType: 'regex' })).verdict).toBe(true);
    expect((await requiredMetadataKeys.run(md(metadata), { metadataKeys: ['^y-'], matchType: 'regex' })).verdict).toBe(false);
  });

  it('rejects bad parameters', () => {
    expect(() => requiredMetadataKeys.validateParams({ metadataKeys: [] })).toThrow(
      /default\.requiredMetadataKeys\.metadataKeys: must be a non-empty array/,
    );
    expect(() => requiredMetadataKeys.validateParams({ metadataKeys: ['a'], matchType: 'fuzzy' })).toThrow(
      /matchType: must be one of exact, contains, containsAll, regex/,
    );
    expect(() => requiredMetadataKeys.validateParams({ metadataKeys: ['a'], operator: 'some' })).toThrow(
      /operator: must be one of all, any, none/,
    );
    expect(() => requiredMetadataKeys.validateParams({ metadataKeys: ['('], matchType: 'regex' })).toThrow(
      /metadataKeys\[0\]: is not a valid regular expression/,
    );
    expect(() => requiredMetadataKeys.validateParams({ metadataKeys: [['a']] })).toThrow(/metadataKeys\[0\]: must be a non-empty string/);
  });
});
