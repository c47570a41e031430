import { describe, expect, it } from 'vitest';
import { PERMISSION_LIST, RESOURCES, covers, isScope } from './permissions.js';
import { principalOfKey } from './principal.js';

describe('permissions', () => {
  it('every permission is <resource>.<action> of a catalogued resource', () => {
    for (const p of PERMISSION_LIST) {
      const [resource, action] = p.split('.');
      expect(RESOURCES as readonly string[]).toContain(resource);
      expect(['read', 'write', 'rotate', 'invoke', 'render']).toContain(action);
    }
  });

  it('covers: exact, resource wildcard, global wildcard; nothing else', () => {
    expect(covers(['configs.read'], 'configs.read')).toBe(true);
    expect(covers(['configs.read'], 'configs.write')).toBe(false);
    expect(covers(['configs.*'], 'configs.write')).toBe(true);
    expect(covers(['configs.*'], 'configs.*')).toBe(true);
    expect(covers(['configs.read'], 'configs.*')).toBe(false);
    expect(covers(['configs.*'], 'prompts.read')).toBe(false);
    expect(covers(['configs.*'], '*')).toBe(false);
    expect(covers(['*'], 'api_keys.rotate')).toBe(true);
    expect(covers(['*'], '*')).toBe(true);
    expect(covers(['config'], 'configs.read')).toBe(false);
    expect(covers([], 'completions.write')).toBe(false);
  });

  it('isScope accepts permissions and wildcards of catalogued resources only', () => {
    expect(isScope('configs.read')).toBe(true);
    expect(isScope('configs.*')).toBe(true);
    expect(isScope('*')).toBe(true);
    expect(isScope('configs.delete')).toBe(false);
    expect(isScope('nope.*')).toBe(false);
    expect(isScope('models.read')).toBe(false);
  });
});

describe('principal', () => {
  it('is built once per key, with the type defaults when the key has no scopes', () => {
    const key = { id: 'k', type: 'workspace-user' as const, organisationId: 'o', workspaceId: 'w', scopes: [] };
    const p = principalOfKey(key);
    expect(p).toMatchObject({ kind: 'user_key', keyId: 'k', organisationId: 'o', workspaceId: 'w' });
    expect(p.scopes).toContain('completions.write');
    expect(principalOfKey(key)).toBe(p);
    expect(principalOfKey({ ...key, type: 'workspace-service', scopes: ['configs.read'] }).scopes).toEqual(['configs.read']);
  });
});
