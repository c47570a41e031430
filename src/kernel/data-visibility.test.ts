import { describe, expect, it } from 'vitest';
import { dataVisibility, FULL_VISIBILITY } from './data-visibility.js';
import type { SettingKey } from './settings.js';

const settings = (values: Partial<Record<SettingKey, boolean>>) => (key: SettingKey) => values[key] ?? true;
const allOff = settings({
  membersViewAllData: false,
  managersViewAllData: false,
  organisationAdminsViewLogs: false,
  organisationAdminsViewLogMetadata: false,
});

describe('dataVisibility', () => {
  it('service principals and workspace admins see everything, whatever the settings', () => {
    expect(dataVisibility(null, allOff)).toEqual(FULL_VISIBILITY);
    expect(dataVisibility({ organisationRole: 'member', membershipRole: 'admin' }, allOff)).toEqual(FULL_VISIBILITY);
  });

  it('members and managers see all requests only while their setting is on', () => {
    expect(dataVisibility({ organisationRole: 'member', membershipRole: 'member' }, settings({})).rows).toBe('all');
    expect(dataVisibility({ organisationRole: 'member', membershipRole: 'member' }, settings({ membersViewAllData: false })).rows).toBe(
      'own',
    );
    expect(dataVisibility({ organisationRole: 'member', membershipRole: 'member' }, settings({ managersViewAllData: false })).rows).toBe(
      'all',
    );
    expect(dataVisibility({ organisationRole: 'member', membershipRole: 'manager' }, settings({ managersViewAllData: false })).rows).toBe(
      'own',
    );
    expect(dataVisibility({ organisationRole: 'member', membershipRole: 'manager' }, settings({ membersViewAllData: false })).rows).toBe(
      'all',
    );
    expect(dataVisibility({ organisationRole: 'member', membershipRole: null }, settings({})).rows).toBe('own');
  });

  it('organisation owners and admins see every request; outside their memberships the two log settings hide bodies and metadata', () => {
    expect(dataVisibility({ organisationRole: 'owner', membershipRole: 'member' }, allOff)).toEqual(FULL_VISIBILITY);
    expect(dataVisibility({ organisationRole: 'admin', membershipRole: null }, settings({}))).toEqual(FULL_VISIBILITY);
    expect(dataVisibility({ organisationRole: 'admin', membershipRole: null }, settings({ organisationAdminsViewLogs: false }))).toEqual({
      rows: 'all',
      bodies: false,
      metadata: true,
    });
    expect(
      dataVisibility({ organisationRole: 'owner', membershipRole: null }, settings({ organisationAdminsViewLogMetadata: false })),
    ).toEqual({ rows: 'all', bodies: true, metadata: false });
    expect(dataVisibility({ organisationRole: 'owner', membershipRole: null }, allOff)).toEqual({
      rows: 'all',
      bodies: false,
      metadata: false,
    });
  });
});
