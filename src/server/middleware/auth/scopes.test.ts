import { describe, expect, it } from 'vitest';
import { effectiveScopes, firstUncoveredScope, scopeCovered } from './scopes.js';

describe('scopeCovered', () => {
  it('`*` covers everything, a resource wildcard its actions and itself, a scope only itself', () => {
    expect(scopeCovered(['*'], '*')).toBe(true);
    expect(scopeCovered(['*'], 'configs.write')).toBe(true);
    expect(scopeCovered(['configs.*'], 'configs.read')).toBe(true);
    expect(scopeCovered(['configs.*'], 'configs.*')).toBe(true);
    expect(scopeCovered(['configs.*'], '*')).toBe(false);
    expect(scopeCovered(['configs.*'], 'prompts.read')).toBe(false);
    expect(scopeCovered(['configs.read'], 'configs.read')).toBe(true);
    expect(scopeCovered(['configs.read'], 'configs.*')).toBe(false);
    expect(scopeCovered(['configs.read'], '*')).toBe(false);
    expect(scopeCovered(['configs.read'], 'configs.write')).toBe(false);
    expect(scopeCovered([], 'configs.read')).toBe(false);
  });

  it('names the first scope not covered', () => {
    expect(firstUncoveredScope(['configs.*', 'logs.read'], ['configs.write', 'logs.read'])).toBeUndefined();
    expect(firstUncoveredScope(['configs.*'], ['configs.write', 'logs.read', '*'])).toBe('logs.read');
  });

  it("a key without scopes acts with its type's defaults", () => {
    expect(effectiveScopes({ type: 'workspace-service', scopes: [] })).toEqual(['*']);
    expect(effectiveScopes({ type: 'workspace-user', scopes: [] })).toContain('completions.write');
    expect(effectiveScopes({ type: 'workspace-user', scopes: ['logs.read'] })).toEqual(['logs.read']);
  });
});
