import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { PERMISSIONS } from './permissions.js';
import { DEFAULT_SCOPES, type KeyType } from './principal.js';
import { MANAGER_SETTING_SCOPES, WORKSPACE_ROLE_SCOPES } from './roles.js';

describe('docs/permissions.md', () => {
  const doc = readFileSync(new URL('../../docs/permissions.md', import.meta.url), 'utf8');
  const rows = [...doc.matchAll(/^\| `([a-z_]+\.[a-z]+)` +\| ([^|]+?) +\| ([^|]+?) +\|$/gm)].map((m) => ({
    permission: m[1]!,
    allows: m[2]!,
    defaults: m[3]!,
  }));

  it('lists every permission of the catalogue, in order, with what it allows', () => {
    expect(rows.map((r) => [r.permission, r.allows])).toEqual(Object.entries(PERMISSIONS));
  });

  it('names, for each permission, exactly the key types that hold it by default', () => {
    for (const r of rows) {
      const documented = r.defaults === '—' ? [] : r.defaults.split(', ');
      const actual = (Object.keys(DEFAULT_SCOPES) as KeyType[]).filter((t) =>
        DEFAULT_SCOPES[t].includes(r.permission as keyof typeof PERMISSIONS),
      );
      expect(documented, r.permission).toEqual(actual);
    }
  });

  it('defaults hold no write, rotate or admin scope', () => {
    for (const scopes of Object.values(DEFAULT_SCOPES)) {
      for (const s of scopes) expect(s === 'completions.write' || s.endsWith('.read') || s === 'prompts.render', s).toBe(true);
    }
  });
});

describe('docs/permissions.md roles', () => {
  const doc = readFileSync(new URL('../../docs/permissions.md', import.meta.url), 'utf8');
  const cells = (row: string) => [...row.matchAll(/`([^`]+)`/g)].map((m) => m[1]!);

  it('lists every workspace role with exactly its scopes, in order', () => {
    const rows = [...doc.matchAll(/^\| `(admin|manager|member)` +\| ([^|]+?) +\|$/gm)].map((m) => [m[1]!, cells(m[2]!)]);
    expect(rows).toEqual(Object.entries(WORKSPACE_ROLE_SCOPES).map(([role, scopes]) => [role, [...scopes]]));
  });

  it("lists a manager's setting-dependent scopes with their settings", () => {
    const rows = [...doc.matchAll(/^\| `([a-z_]+\.[a-z]+)` +\| `([A-Za-z]+)` +\|$/gm)].map((m) => [m[1]!, m[2]!]);
    expect(rows).toEqual(Object.entries(MANAGER_SETTING_SCOPES));
  });
});
