import { describe, expect, it } from 'vitest';
import { allProviderSettings, providerNames, providerSettings } from './registry.js';

describe('provider settings', () => {
  it('each provider owns its keys; the registry merges them', () => {
    expect(Object.keys(providerSettings('bedrock')!).sort()).toEqual([
      'cloud1_access_key_id',
      'cloud1_region',
      'cloud1_secret_access_key',
      'cloud1_session_token',
    ]);
    expect(Object.keys(providerSettings('vertex-ai')!).sort()).toEqual([
      'cloud2_project_id',
      'cloud2_region',
      'cloud2_service_account_json',
    ]);
    expect(Object.keys(providerSettings('azure-openai')!)).toEqual(
      expect.arrayContaining([
        'resource_name',
        'deployment_id',
        'api_version',
        'deployments',
        'cloud3_entra_client_secret',
        'compat_organization',
      ]),
    );
    expect(Object.keys(providerSettings('azure-ai')!)).toEqual(
      expect.arrayContaining(['cloud3_region', 'cloud3_endpoint_name', 'cloud3_deployment_type']),
    );
    expect(Object.keys(providerSettings('openai')!).sort()).toEqual(['compat_organization', 'compat_project']);
    expect(providerSettings('anthropic')).toEqual({});
    expect(providerSettings('nope')).toBeUndefined();
    const merged = allProviderSettings();
    for (const name of providerNames()) for (const key of Object.keys(providerSettings(name)!)) expect(merged[key], key).toBeDefined();
    expect(merged.cloud1_region).toBeDefined();
    expect(merged.api_key).toBeUndefined();
  });
});
