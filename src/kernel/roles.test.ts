import { describe, expect, it } from 'vitest';
import { PERMISSION_LIST } from './permissions.js';
import { effectiveWorkspaceRole, intersectScopes, userPermissions } from './roles.js';
import { principalOfKey } from './principal.js';

const allTrue = () => true;

describe('roles', () => {
  it('organisation owners and admins act as workspace admin and hold everything; members need a membership', () => {
    expect(effectiveWorkspaceRole('owner', null)).toBe('admin');
    expect(effectiveWorkspaceRole('admin', 'member')).toBe('admin');
    expect(effectiveWorkspaceRole('member', 'manager')).toBe('manager');
    expect(effectiveWorkspaceRole('member', null)).toBeNull();
    expect(userPermissions('owner', 'admin', allTrue)).toEqual(PERMISSION_LIST);
    expect(userPermissions('member', null, allTrue)).toEqual([]);
  });

  it('follows the table: members read and use, managers write workspace resources, admins also manage the workspace', () => {
    const member = userPermissions('member', 'member', allTrue);
    const manager = userPermissions('member', 'manager', allTrue);
    const admin = userPermissions('member', 'admin', allTrue);
    expect(member).toEqual(expect.arrayContaining(['completions.write', 'configs.read', 'api_keys.write']));
    expect(member).not.toContain('configs.write');
    expect(member).not.toContain('api_keys.read');
    expect(manager).toEqual(expect.arrayContaining(['configs.write', 'api_keys.read', 'integrations.write']));
    expect(manager).not.toContain('workspaces.write');
    expect(admin).toEqual(expect.arrayContaining(['workspaces.write', 'api_keys.rotate', 'users.read']));
    for (const p of ['organisation.write', 'users.write', 'audit_logs.read', 'secret_references.read'] as const)
      expect(admin).not.toContain(p);
  });

  it("a manager's optional scopes follow the settings", () => {
    const off = userPermissions('member', 'manager', (k) => k !== 'managersWriteWsIntegrations');
    expect(off).not.toContain('integrations.write');
    expect(off).toContain('mcp_servers.write');
  });

  it('a user key acts with its scopes ∩ its role, computed once per key object', () => {
    expect(intersectScopes(['configs.*', 'completions.write'], ['configs.read', 'completions.write'])).toEqual([
      'configs.read',
      'completions.write',
    ]);
    const key = {
      id: 'k',
      type: 'workspace-user' as const,
      organisationId: 'o',
      workspaceId: 'w',
      scopes: ['*'],
      user: {
        id: 'u',
        organisationRole: 'member' as const,
        workspaceRole: 'member' as const,
        permissions: ['configs.read' as const],
        visibility: { rows: 'own' as const, bodies: true, metadata: true },
      },
    };
    const p = principalOfKey(key);
    expect(p).toMatchObject({
      scopes: ['configs.read'],
      userId: 'u',
      organisationRole: 'member',
      workspaceRole: 'member',
      visibility: { rows: 'own' },
    });
    expect(principalOfKey(key)).toBe(p);
  });
});
