import { Ajv, type ErrorObject } from 'ajv';
import { GatewayError } from '../foundation/errors/gateway-error.js';
import { isObject } from '../foundation/lib/json.js';
import { tooDeepPath } from '../foundation/lib/json-depth.js';
import { ConfigSchema, REQUIRED_COMBINATIONS, type ConfigObject } from './config-schema.js';

const ajv = new Ajv({ allErrors: true, strict: false });
const checkShape = ajv.compile(ConfigSchema);

/** Extra validation a capability contributes (guardrail check parameters, ...). Throw GatewayError('invalid_config'). */
export type ConfigValidator = (node: ConfigObject, path: string) => void;

const extraValidators: ConfigValidator[] = [];

/** Registers a validator run on every config node after the structural checks. */
export function addConfigValidator(v: ConfigValidator): void {
  extraValidators.push(v);
}

/** How many levels of `targets` may nest (the root's `targets` is level 1). */
export const MAX_TARGET_DEPTH = 10;
/** How deep any JSON inside a config may nest (objects and arrays; the config itself is level 1). */
export const MAX_CONFIG_JSON_DEPTH = 64;

/**
 * Validates a config object against the specification: nesting depth first (without recursion, so
 * a config nested thousands of levels deep is refused, not a stack overflow), then the schema
 * (unknown keys rejected at every level, types and bounds), the any-of key combinations,
 * `passthrough` exclusivity, strategy requirements and provider names. Throws 400 `invalid_config`
 * whose message names the JSON path of the first offending key, e.g. `config.targets[0].retry.attempts`.
 */
export function validateConfig(value: unknown, isKnownProvider: (name: string) => boolean): ConfigObject {
  if (!isObject(value)) throw invalid('config', 'must be a JSON object');
  checkDepth(value);
  if (!checkShape(value)) throw shapeError(checkShape.errors ?? []);
  checkNode(value as ConfigObject, 'config', isKnownProvider);
  return value as ConfigObject;
}

/** Refuses `targets` nested deeper than MAX_TARGET_DEPTH and any JSON deeper than MAX_CONFIG_JSON_DEPTH. */
function checkDepth(config: Record<string, unknown>): void {
  const stack: Array<{ node: Record<string, unknown>; path: string; depth: number }> = [{ node: config, path: 'config', depth: 0 }];
  while (stack.length > 0) {
    const { node, path, depth } = stack.pop()!;
    if (!Array.isArray(node.targets)) continue;
    if (depth + 1 > MAX_TARGET_DEPTH) throw invalid(`${path}.targets`, `nests targets more than ${MAX_TARGET_DEPTH} levels deep`);
    node.targets.forEach((t, i) => {
      if (isObject(t)) stack.push({ node: t, path: `${path}.targets[${i}]`, depth: depth + 1 });
    });
  }
  const deep = tooDeepPath(config, MAX_CONFIG_JSON_DEPTH);
  if (deep)
    throw invalid(
      toPath(deep.map((s) => `/${String(s).replace(/~/g, '~0').replace(/\//g, '~1')}`).join('')),
      `is nested more than ${MAX_CONFIG_JSON_DEPTH} levels deep`,
    );
}

function invalid(path: string, message: string): GatewayError {
  return new GatewayError('invalid_config', `Invalid config: ${path} ${message}`, { param: path });
}

/** Turns Ajv's errors into one message about the most specific problem. */
function shapeError(errors: ErrorObject[]): GatewayError {
  const specific = errors.filter(
    (e) => e.keyword !== 'anyOf' && !(e.keyword === 'type' && e.params.type === 'string' && /guardrails\/\d+$/.test(e.instancePath)),
  );
  const pool = specific.length ? specific : errors;
  const best = pool.reduce((a, b) => (depth(b) > depth(a) ? b : a));
  let path = toPath(best.instancePath);
  let message = best.message ?? 'is invalid';
  if (best.keyword === 'additionalProperties') {
    path += keySuffix(String(best.params.additionalProperty));
    message = 'is not an allowed key';
  } else if (best.keyword === 'required') {
    path += keySuffix(String(best.params.missingProperty));
    message = 'is required';
  } else if (best.keyword === 'enum' && Array.isArray(best.params.allowedValues)) {
    message = `must be one of ${best.params.allowedValues.join(', ')}`;
  } else if (best.keyword === 'anyOf' || best.keyword === 'const') {
    message = 'has a value that is not allowed';
  }
  return invalid(path, message);
}

function depth(e: ErrorObject): number {
  return e.instancePath.split('/').length + (e.keyword === 'additionalProperties' || e.keyword === 'required' ? 1 : 0);
}

/** `/targets/0/retry` → `config.targets[0].retry`. */
export function toPath(pointer: string): string {
  let out = 'config';
  for (const part of pointer.split('/').slice(1)) {
    const key = part.replace(/~1/g, '/').replace(/~0/g, '~');
    out += /^\d+$/.test(key) ? `[${key}]` : keySuffix(key);
  }
  return out;
}

function keySuffix(key: string): string {
  return /^[A-Za-z_][A-Za-z0-9_]*$/.test(key) ? `.${key}` : `[${JSON.stringify(key)}]`;
}

function checkNode(node: ConfigObject, path: string, isKnownProvider: (name: string) => boolean): void {
  // `provider: "@<slug>"` names a stored provider, like `virtual_key`: it needs no key of its own.
  const storedProvider = typeof node.provider === 'string' && node.provider.startsWith('@');
  const present = (k: string) => node[k] !== undefined || (k === 'virtual_key' && storedProvider);
  if (!REQUIRED_COMBINATIONS.some((combo) => combo.every(present))) throw missingCombination(node, path);
  if (node.passthrough) {
    for (const k of [
      'targets',
      'strategy',
      'override_params',
      'input_guardrails',
      'output_guardrails',
      'before_request_hooks',
      'after_request_hooks',
    ]) {
      if (present(k)) throw invalid(`${path}.${k}`, 'cannot be used with passthrough: true');
    }
  }
  if (typeof node.provider === 'string' && !node.provider.startsWith('@') && !isKnownProvider(node.provider)) {
    throw invalid(`${path}.provider`, `names an unknown provider '${node.provider}'`);
  }
  const mode = node.strategy?.mode;
  if (node.targets && !node.strategy) throw invalid(`${path}.strategy`, 'is required when targets are given');
  if (mode && mode !== 'single' && !node.targets) throw invalid(`${path}.targets`, `is required with strategy mode '${mode}'`);
  if (mode === 'single' && !node.targets && !node.provider && !node.virtual_key)
    throw invalid(`${path}.targets`, "is required with strategy mode 'single' when no provider is set");
  if (mode !== 'fallback' && node.strategy?.on_status_codes)
    throw invalid(`${path}.strategy.on_status_codes`, "is used only in 'fallback' mode");
  if (mode === 'conditional') checkConditional(node, path);
  node.targets?.forEach((t, i) => checkNode(t, `${path}.targets[${i}]`, isKnownProvider));
  for (const v of extraValidators) v(node, path);
}

function checkConditional(node: ConfigObject, path: string): void {
  const s = node.strategy!;
  if (!s.conditions || s.conditions.length === 0)
    throw invalid(`${path}.strategy.conditions`, "is required with strategy mode 'conditional'");
  if (s.default === undefined) throw invalid(`${path}.strategy.default`, "is required with strategy mode 'conditional'");
  const names = new Set((node.targets ?? []).map((t) => t.name).filter((n): n is string => typeof n === 'string'));
  s.conditions.forEach((c, i) => {
    if (!names.has(c.then)) throw invalid(`${path}.strategy.conditions[${i}].then`, `names no target ('${c.then}')`);
  });
  if (!names.has(s.default)) throw invalid(`${path}.strategy.default`, `names no target ('${s.default}')`);
}

/** Names the keys missing from the combination closest to what the node has. */
function missingCombination(node: ConfigObject, path: string): GatewayError {
  const keys = new Set(Object.keys(node).filter((k) => node[k] !== undefined));
  let best: readonly string[] | undefined;
  let bestScore = 0;
  for (const combo of REQUIRED_COMBINATIONS) {
    const have = combo.filter((k) => keys.has(k)).length;
    const score = have / combo.length + have;
    if (have > 0 && score > bestScore) {
      best = combo;
      bestScore = score;
    }
  }
  if (best) {
    const missing = best.filter((k) => !keys.has(k));
    return invalid(
      `${path}.${missing[0]}`,
      `is required (with ${best.filter((k) => keys.has(k)).join(', ')}; missing ${missing.join(', ')})`,
    );
  }
  return invalid(
    path,
    'must contain one of: provider + api_key, provider + custom_host, virtual_key, strategy + targets, cache, retry, prompt_id, forward_headers, request_timeout, passthrough, guardrails or hooks, or cloud credential keys',
  );
}
