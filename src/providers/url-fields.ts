import { GatewayError } from '../foundation/errors/gateway-error.js';

/** A config field that becomes part of an upstream URL: the pattern its value must match and an example. */
export interface UrlField {
  readonly pattern: RegExp;
  readonly example: string;
  readonly what: string;
}

const AZURE_NAME: UrlField = { pattern: /^[a-zA-Z0-9-]{1,64}$/, example: 'my-resource', what: 'an Azure resource or endpoint name' };
/** A deployment id is one path segment: no `/`, `%`, `@` or `:`, and never `.` or `..`. */
const DEPLOYMENT: UrlField = { pattern: /^(?!\.{1,2}$)[A-Za-z0-9._-]{1,64}$/, example: 'gpt4o-prod', what: 'a deployment id' };
const API_VERSION: UrlField = { pattern: /^(?!\.{1,2}$)[A-Za-z0-9._-]{1,32}$/, example: '2024-10-21', what: 'an API version' };

/**
 * Every provider config field that is placed in an upstream URL's host, path or query, with its
 * documented shape. Config validation applies these patterns (400 `invalid_config` naming the path)
 * and providers check again when they build the URL ({@link urlField}), since stored credentials
 * (virtual keys) reach the providers without passing config validation.
 * @see https://docs.aws.amazon.com/general/latest/gr/rande.html (AWS regions)
 * @see https://cloud.google.com/vertex-ai/docs/general/locations (Google Cloud regions)
 * @see https://cloud.google.com/resource-manager/docs/creating-managing-projects (project ids)
 * @see https://learn.microsoft.com/azure/azure-resource-manager/management/resource-name-rules
 */
export const URL_FIELDS = {
  cloud1_region: { pattern: /^[a-z]{2}(-[a-z]+)+-\d{1,2}$/, example: 'us-east-1', what: 'an AWS region' },
  cloud2_region: { pattern: /^[a-z]+(-[a-z]+\d*)*$/, example: 'us-central1', what: "a Google Cloud region (or 'global')" },
  cloud2_project_id: { pattern: /^([a-z0-9.-]+:)?[a-z][a-z0-9-]{0,62}$/, example: 'my-project', what: 'a Google Cloud project id' },
  cloud3_region: { pattern: /^[a-z][a-z0-9]{0,39}$/, example: 'eastus2', what: 'an Azure region' },
  resource_name: AZURE_NAME,
  cloud3_resource_name: AZURE_NAME,
  cloud3_endpoint_name: AZURE_NAME,
  cloud3_deployment_name: AZURE_NAME,
  deployment_id: DEPLOYMENT,
  cloud3_deployment_id: DEPLOYMENT,
  api_version: API_VERSION,
  cloud3_api_version: API_VERSION,
} as const satisfies Record<string, UrlField>;

/** Name of a field listed in {@link URL_FIELDS}. */
export type UrlFieldName = keyof typeof URL_FIELDS;

/**
 * Checks a value bound for an upstream URL against its field's pattern; returns it, or throws 400
 * `invalid_request` naming `param` (default: the field).
 */
export function checkUrlField(field: UrlFieldName, value: string, param: string = field): string {
  const rule: UrlField = URL_FIELDS[field];
  if (!rule.pattern.test(value)) {
    throw new GatewayError(
      'invalid_request',
      `'${param}' must be ${rule.what} such as '${rule.example}' (it becomes part of the provider URL).`,
      { param },
    );
  }
  return value;
}

/** Reads a URL-bound config field: undefined when absent or empty, the value when it matches its pattern, else 400 (see {@link checkUrlField}). */
export function urlField(config: Readonly<Record<string, unknown>>, field: UrlFieldName): string | undefined {
  const value = config[field];
  if (value === undefined || value === null || value === '') return undefined;
  if (typeof value !== 'string') throw new GatewayError('invalid_request', `'${field}' must be a string.`, { param: field });
  return checkUrlField(field, value);
}
