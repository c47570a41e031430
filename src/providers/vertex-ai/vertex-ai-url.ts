import { GatewayError } from '../../foundation/errors/gateway-error.js';
import { joinUrl } from '../openai-compatible/url.js';
import { checkUrlField, urlField } from '../url-fields.js';
import type { ProviderTarget } from '../provider.js';
import { parseServiceAccount } from './vertex-ai-auth.js';

/** Region used when `cloud2_region` is absent. */
export const DEFAULT_REGION = 'us-central1';

/** The model publishers served under `/publishers/{publisher}/models/{model}`. */
export type VertexPublisher = 'google' | 'anthropic';

/**
 * Base URL of a Vertex AI target: `custom_host` when set, else `https://{region}-aiplatform.googleapis.com`
 * (`https://aiplatform.googleapis.com` for region `global`).
 * @see https://cloud.google.com/vertex-ai/docs/reference/rest#service-endpoint
 */
export function vertexBaseUrl(target: ProviderTarget): string {
  if (target.customHost) return target.customHost;
  const region = regionOf(target);
  return region === 'global' ? 'https://aiplatform.googleapis.com' : `https://${region}-aiplatform.googleapis.com`;
}

/** `cloud2_region` (it becomes the endpoint's host), checked against its pattern; default {@link DEFAULT_REGION}. */
function regionOf(target: ProviderTarget): string {
  return urlField(target.config, 'cloud2_region') ?? DEFAULT_REGION;
}

/** `cloud2_project_id`, else the service account's `project_id`, each checked against the project id pattern. */
function projectOf(target: ProviderTarget): string {
  const project = urlField(target.config, 'cloud2_project_id');
  if (project) return project;
  const fromAccount = parseServiceAccount(target.config.cloud2_service_account_json)?.project_id;
  if (fromAccount) return checkUrlField('cloud2_project_id', fromAccount, 'cloud2_service_account_json.project_id');
  throw new GatewayError(
    'invalid_request',
    "Provider 'vertex-ai' needs 'cloud2_project_id' (or a service account key with 'project_id').",
    {
      param: 'cloud2_project_id',
    },
  );
}

/**
 * URL of a publisher model method, e.g.
 * `…/v1/projects/{p}/locations/{r}/publishers/google/models/{model}:generateContent` (the `@` of a
 * versioned Claude model such as `claude-sonnet-4@20250514` stays as is, as Google documents it).
 * @see https://cloud.google.com/vertex-ai/docs/reference/rest/v1/projects.locations.publishers.models
 */
export function vertexModelUrl(target: ProviderTarget, publisher: VertexPublisher, model: string, method: string): string {
  const path = `/v1/projects/${encodeURIComponent(projectOf(target))}/locations/${encodeURIComponent(regionOf(target))}/publishers/${publisher}/models/${encodeURIComponent(model).replace(/%40/g, '@')}:${method}`;
  return joinUrl(vertexBaseUrl(target), path);
}
