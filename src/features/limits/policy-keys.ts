import { GatewayError } from '../../foundation/errors/gateway-error.js';
import type { RateLimitUnit } from '../../infra/store/repos/rate-limit-policies.js';

/** Condition keys a policy may test besides `metadata.<key>` (docs/limits.md, "Conditions"). */
export const CONDITION_KEYS = ['workspace_id', 'api_key', 'endpoint_type', 'model', 'provider'] as const;

/** Group-by keys besides `metadata.<key>` (docs/limits.md, "Group by"). */
export const GROUP_BY_KEYS = ['api_key', 'workspace_id', 'model', 'provider', 'endpoint_type'] as const;

/** Length of each unit's window in milliseconds. */
export const WINDOW_MS: Record<RateLimitUnit, number> = {
  rpm: 60_000,
  rph: 3_600_000,
  rpd: 86_400_000,
  rpw: 604_800_000,
};

/**
 * Endpoint types an `endpoint_type` condition names, with the aliases other gateways use. The
 * canonical names are the data plane's endpoint kinds (`dp.endpoint`).
 */
const ENDPOINT_TYPES: Record<string, string> = {
  chat: 'chat',
  chat_completion: 'chat',
  chat_completions: 'chat',
  chatComplete: 'chat',
  completions: 'completions',
  completion: 'completions',
  complete: 'completions',
  embeddings: 'embeddings',
  embedding: 'embeddings',
  embed: 'embeddings',
  images: 'images',
  image_generation: 'images',
  imageGenerate: 'images',
  rerank: 'rerank',
  moderations: 'moderations',
  moderation: 'moderations',
  responses: 'responses',
  batches: 'batches',
  files: 'files',
  fine_tuning: 'fine_tuning',
  audio: 'audio',
  messages: 'messages',
  agents: 'agents',
  agent: 'agents',
  a2a: 'agents',
  mcp: 'mcp',
};

/** The canonical endpoint type of a condition value, or undefined when it names none. */
export function canonicalEndpointType(value: string): string | undefined {
  return ENDPOINT_TYPES[value];
}

const METADATA = /^metadata\.[^\s]{1,64}$/;

function isKnown(key: string, known: readonly string[]): boolean {
  return known.includes(key) || METADATA.test(key);
}

/**
 * Checks the keys of `conditions` and `group_by` (400 `invalid_request` naming the JSON path of the
 * first bad entry). Values are free text except `endpoint_type`, which must name a known type.
 */
export function checkPolicyKeys(
  conditions: ReadonlyArray<{ key: string; value: string }> | undefined,
  groupBy: ReadonlyArray<{ key: string }> | undefined,
): void {
  (conditions ?? []).forEach((c, i) => {
    if (!isKnown(c.key, CONDITION_KEYS)) {
      const param = `body.conditions[${i}].key`;
      throw new GatewayError(
        'invalid_request',
        `${param}: unknown condition key '${c.key}'; expected one of ${CONDITION_KEYS.join(', ')} or metadata.<key>.`,
        { param },
      );
    }
    if (c.key === 'endpoint_type' && !canonicalEndpointType(c.value)) {
      const param = `body.conditions[${i}].value`;
      const names = [...new Set(Object.values(ENDPOINT_TYPES))].join(', ');
      throw new GatewayError('invalid_request', `${param}: unknown endpoint type '${c.value}'; expected one of ${names}.`, { param });
    }
  });
  const seen = new Set<string>();
  (groupBy ?? []).forEach((g, i) => {
    const param = `body.group_by[${i}].key`;
    if (!isKnown(g.key, GROUP_BY_KEYS)) {
      throw new GatewayError(
        'invalid_request',
        `${param}: unknown group_by key '${g.key}'; expected one of ${GROUP_BY_KEYS.join(', ')} or metadata.<key>.`,
        { param },
      );
    }
    if (seen.has(g.key)) throw new GatewayError('invalid_request', `${param}: '${g.key}' is listed twice.`, { param });
    seen.add(g.key);
  });
}
