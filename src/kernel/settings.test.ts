import { describe, expect, it } from 'vitest';
import { effectiveSetting, effectiveSettings, organisationSettingsView, SETTING_KEYS, WORKSPACE_SETTING_KEYS } from './settings.js';

describe('settings catalogue', () => {
  it('a workspace overrides only the keys it may; else the organisation; else the default', () => {
    expect(effectiveSetting('membersViewAllData', { membersViewAllData: false }, { membersViewAllData: true })).toEqual({
      value: false,
      source: 'workspace',
    });
    expect(
      effectiveSetting('user_api_key_rotation_period', { user_api_key_rotation_period: null }, { user_api_key_rotation_period: 'weekly' }),
    ).toEqual({ value: null, source: 'workspace' });
    expect(effectiveSetting('organisationAdminsViewLogs', { organisationAdminsViewLogs: false }, {})).toEqual({
      value: true,
      source: 'default',
    });
    expect(effectiveSetting('session_settings.max_session_ttl', {}, { session_settings: { max_session_ttl: 1200 } })).toEqual({
      value: 1200,
      source: 'organisation',
    });
    expect(effectiveSetting('session_settings.max_session_ttl', null, null)).toEqual({ value: 86400, source: 'default' });
  });

  it('names the overridable keys of the specification', () => {
    expect(WORKSPACE_SETTING_KEYS).toEqual([
      'user_api_key_rotation_period',
      'membersViewAllData',
      'managersViewAllData',
      'managersWriteWsIntegrations',
      'managersWriteWsMcpIntegrations',
      'managersWriteMcpServers',
      'log_bodies',
    ]);
    expect(Object.keys(effectiveSettings({}, {}))).toEqual(SETTING_KEYS);
  });

  it('answers the whole organisation settings, nested as stored', () => {
    const view = organisationSettingsView({ user_api_key_auto_create: true });
    expect(view).toMatchObject({ user_api_key_auto_create: true, session_settings: { max_session_ttl: 86400 }, membersViewAllData: true });
  });
});
