import { describe, expect, it } from 'vitest';
import { GatewayError } from '../foundation/errors/gateway-error.js';
import { validateConfig } from './validate-config.js';

const known = (name: string) => ['bedrock', 'vertex-ai', 'azure-ai', 'azure-openai'].includes(name);

function refusal(config: unknown): GatewayError {
  try {
    validateConfig(config, known);
  } catch (err) {
    expect(err).toBeInstanceOf(GatewayError);
    return err as GatewayError;
  }
  throw new Error('expected the config to be rejected');
}

describe('config fields that become part of a provider URL', () => {
  it.each([
    [
      { provider: 'bedrock', cloud1_access_key_id: 'a', cloud1_secret_access_key: 'b', cloud1_region: 'x@127.0.0.1:8080/#' },
      'config.cloud1_region',
    ],
    [{ provider: 'vertex-ai', cloud2_region: 'us-central1.evil.com/', cloud2_project_id: 'p' }, 'config.cloud2_region'],
    [{ provider: 'vertex-ai', cloud2_region: 'us-central1', cloud2_project_id: '../../x' }, 'config.cloud2_project_id'],
    [{ provider: 'azure-openai', api_key: 'k', resource_name: 'evil.com#' }, 'config.resource_name'],
    [{ provider: 'azure-openai', api_key: 'k', cloud3_resource_name: 'a@b' }, 'config.cloud3_resource_name'],
    [{ provider: 'azure-openai', api_key: 'k', deployment_id: '../files' }, 'config.deployment_id'],
    [{ provider: 'azure-openai', api_key: 'k', cloud3_deployment_id: '..' }, 'config.cloud3_deployment_id'],
    [{ provider: 'azure-openai', api_key: 'k', api_version: '1&x=y' }, 'config.api_version'],
    [
      { provider: 'azure-openai', api_key: 'k', deployments: [{ deployment_id: 'a/b', alias: 'm', api_version: '2024-10-21' }] },
      'config.deployments[0].deployment_id',
    ],
    [
      { provider: 'azure-openai', api_key: 'k', deployments: [{ deployment_id: 'd', alias: 'm', api_version: 'v?x' }] },
      'config.deployments[0].api_version',
    ],
    [
      { provider: 'azure-ai', cloud3_endpoint_name: 'e', cloud3_deployment_type: 'managed', cloud3_region: '127.0.0.1:1/' },
      'config.cloud3_region',
    ],
    [{ provider: 'azure-ai', cloud3_endpoint_name: 'e:1@h', cloud3_deployment_type: 'managed' }, 'config.cloud3_endpoint_name'],
    [
      {
        provider: 'azure-ai',
        cloud3_deployment_name: 'd.x',
        cloud3_deployment_type: 'serverless',
        cloud3_region: 'r',
        cloud3_api_version: 'v',
      },
      'config.cloud3_deployment_name',
    ],
    [
      {
        provider: 'azure-ai',
        cloud3_deployment_name: 'd',
        cloud3_deployment_type: 'serverless',
        cloud3_region: 'r',
        cloud3_api_version: 'v#',
      },
      'config.cloud3_api_version',
    ],
    [
      { strategy: { mode: 'fallback' }, targets: [{ virtual_key: 'a' }, { provider: 'bedrock', api_key: 'k', cloud1_region: 'evil.com' }] },
      'config.targets[1].cloud1_region',
    ],
  ])('%j is 400 invalid_config naming %s', (config, path) => {
    const err = refusal(config);
    expect([err.status, err.code, err.param]).toEqual([400, 'invalid_config', path]);
    expect(err.message).toContain(path);
  });

  it('documented values pass', () => {
    expect(() =>
      validateConfig(
        {
          strategy: { mode: 'fallback' },
          targets: [
            { provider: 'bedrock', api_key: 'k', cloud1_region: 'eu-west-3' },
            { provider: 'vertex-ai', cloud2_region: 'global', cloud2_project_id: 'test-project' },
            {
              provider: 'azure-openai',
              api_key: 'k',
              resource_name: 'my-res',
              deployments: [{ deployment_id: 'gpt4o-prod', alias: 'gpt-4o', api_version: '2024-10-21' }],
            },
            {
              provider: 'azure-ai',
              cloud3_endpoint_name: 'my-ep',
              cloud3_deployment_type: 'managed',
              cloud3_region: 'eastus2',
              cloud3_api_version: '2024-05-01-preview',
            },
          ],
        },
        known,
      ),
    ).not.toThrow();
  });
});
