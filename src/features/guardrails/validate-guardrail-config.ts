/**
 * Config-time validation of guardrail items and hooks (registered with `addConfigValidator`): every
 * inline check id must be in the catalogue, support the list's event, and have valid parameters.
 * Errors are 400 `invalid_config` naming the JSON path, e.g.
 * `config.input_guardrails[0]["default.contains"].words`. String items (stored guardrail ids) are
 * checked per request, against the request's workspace.
 */
import { GatewayError } from '../../foundation/errors/gateway-error.js';
import { isObject } from '../../foundation/lib/json.js';
import type { ConfigObject } from '../../routing/config-schema.js';
import type { HookEvent } from './check.js';
import { getCheck } from './catalogue.js';
import { ACTION_KEYS, GUARDRAIL_LISTS, keyPath } from './guardrail-spec.js';

function invalid(path: string, message: string): GatewayError {
  return new GatewayError('invalid_config', `Invalid config: ${path} ${message}`, { param: path });
}

/** Validates one check use; `idPath` names the id, `paramsPath` the parameter object. */
export function validateCheckUse(id: string, params: unknown, event: HookEvent, idPath: string, paramsPath: string): void {
  const def = getCheck(id);
  if (!def) throw invalid(idPath, `names an unknown guardrail check '${id}'`);
  if (!def.phases.includes(event)) throw invalid(idPath, `check '${id}' cannot run in ${event} (it supports ${def.phases.join(', ')})`);
  def.validateParams(params, paramsPath);
}

function validateGuardrailObject(item: Record<string, unknown>, event: HookEvent, path: string): void {
  const checkKeys = Object.keys(item).filter((k) => !ACTION_KEYS.has(k));
  if (checkKeys.length === 0 && typeof item.id !== 'string') {
    throw invalid(path, 'names no check (add a check id key such as "default.contains") and no stored guardrail id');
  }
  for (const key of checkKeys) validateCheckUse(key, item[key], event, `${path}${keyPath(key)}`, `${path}${keyPath(key)}`);
}

function validateHookObject(item: Record<string, unknown>, event: HookEvent, path: string): void {
  if (!Array.isArray(item.checks)) return;
  if (item.checks.length === 0)
    throw invalid(`${path}.checks`, 'must list at least one check (or leave it out to use the stored guardrail named by id)');
  item.checks.forEach((c, j) => {
    const p = `${path}.checks[${j}]`;
    if (!isObject(c) || typeof c.id !== 'string') throw invalid(`${p}.id`, 'is required');
    validateCheckUse(c.id, c.parameters, event, `${p}.id`, `${p}.parameters`);
  });
}

/** The ConfigValidator for one config node (targets are visited by the caller). */
export function validateGuardrailConfig(node: ConfigObject, path: string): void {
  for (const list of GUARDRAIL_LISTS) {
    const items = node[list.key];
    if (!Array.isArray(items)) continue;
    items.forEach((item, i) => {
      const itemPath = `${path}.${list.key}[${i}]`;
      if (typeof item === 'string') return;
      if (!isObject(item)) throw invalid(itemPath, 'must be a stored guardrail id or an object');
      if (list.hook) validateHookObject(item, list.event, itemPath);
      else validateGuardrailObject(item, list.event, itemPath);
    });
  }
}
