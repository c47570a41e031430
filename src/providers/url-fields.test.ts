import { describe, expect, it } from 'vitest';
import { GatewayError } from '../foundation/errors/gateway-error.js';
import { checkUrlField, urlField, URL_FIELDS, type UrlFieldName } from './url-fields.js';

const VALID: Record<UrlFieldName, string[]> = {
  cloud1_region: ['us-east-1', 'eu-central-1', 'ap-southeast-2', 'us-gov-west-1', 'cn-north-1'],
  cloud2_region: ['us-central1', 'europe-west4', 'northamerica-northeast1', 'global', 'us'],
  cloud2_project_id: ['my-project', 'test-project', 'p', 'example.com:my-project'],
  cloud3_region: ['eastus2', 'westeurope', 'swedencentral'],
  resource_name: ['my-res', 'r', 'Contoso-OpenAI-01'],
  cloud3_resource_name: ['my-foundry'],
  cloud3_endpoint_name: ['mistral-large-xyz', 'my-ep'],
  cloud3_deployment_name: ['Llama-3-8B'],
  deployment_id: ['gpt4o-prod', 'gpt-4.1_mini', 'dep.v2'],
  cloud3_deployment_id: ['d2'],
  api_version: ['2024-10-21', '2025-04-01-preview', 'preview', 'v1'],
  cloud3_api_version: ['2024-05-01-preview'],
};

/** Values that would move the host, the path or the query of the URL they are placed in. */
const ATTACKS = ['x@127.0.0.1:8080/#', 'a/b', 'a?b=c', 'a#b', 'a%2fb', 'a b', 'a\r\nb', '..', '.', 'x.evil.com/', ''];

/** Fields placed in a host name: one DNS label (no dots), so they cannot name another host. */
const HOST_FIELDS: UrlFieldName[] = [
  'cloud1_region',
  'cloud2_region',
  'cloud3_region',
  'resource_name',
  'cloud3_resource_name',
  'cloud3_endpoint_name',
  'cloud3_deployment_name',
];

describe('URL_FIELDS', () => {
  it.each(Object.keys(VALID) as UrlFieldName[])('%s accepts documented values and refuses URL-moving ones', (field) => {
    for (const v of VALID[field]) expect(checkUrlField(field, v)).toBe(v);
    for (const v of ATTACKS) expect(() => checkUrlField(field, v), `${field}=${JSON.stringify(v)}`).toThrow(GatewayError);
  });

  it.each(HOST_FIELDS)('%s (a host label) refuses dots', (field) => {
    for (const v of ['127.0.0.1', 'evil.com', 'a.']) expect(() => checkUrlField(field, v), `${field}=${v}`).toThrow(GatewayError);
  });

  it('the AWS region is the documented shape only', () => {
    for (const v of ['us-east', 'US-EAST-1', 'useast1', 'us-east-1.evil', 'us-east-1x'])
      expect(() => checkUrlField('cloud1_region', v)).toThrow(/AWS region/);
  });

  it('refusals are 400 invalid_request naming the field or the given param', () => {
    const err = (() => {
      try {
        checkUrlField('deployment_id', '../files', 'deployments[1].deployment_id');
      } catch (e) {
        return e as GatewayError;
      }
      throw new Error('not refused');
    })();
    expect([err.status, err.code, err.param]).toEqual([400, 'invalid_request', 'deployments[1].deployment_id']);
  });

  it('urlField reads a config: absent or empty is undefined, a non-string is refused', () => {
    expect(urlField({}, 'cloud1_region')).toBeUndefined();
    expect(urlField({ cloud1_region: '' }, 'cloud1_region')).toBeUndefined();
    expect(urlField({ cloud1_region: 'eu-west-3' }, 'cloud1_region')).toBe('eu-west-3');
    expect(() => urlField({ cloud1_region: 5 }, 'cloud1_region')).toThrow(/must be a string/);
    expect(() => urlField({ cloud1_region: 'x@127.0.0.1:1/#' }, 'cloud1_region')).toThrow(/AWS region/);
  });

  it('every pattern is anchored', () => {
    for (const [name, rule] of Object.entries(URL_FIELDS))
      expect([name, rule.pattern.source.startsWith('^') && rule.pattern.source.endsWith('$')]).toEqual([name, true]);
  });
});
