/**
 * The normalised form of the four config lists that hold guardrails (`input_guardrails`,
 * `output_guardrails`, `before_request_hooks`, `after_request_hooks`) and of stored guardrails:
 * a `Guardrail` is a list of checks plus what a failure (or success) does.
 *
 * Config items come in three shapes:
 * - a string: the id or slug of a stored guardrail (resolved per request from the runtime snapshot);
 * - a guardrail object: its extra keys are check ids with parameter objects
 *   (`{"default.contains": {...}, "deny": true}`); without any check key but with `id`, it names a
 *   stored guardrail and its own `deny` / `async` / `on_fail` / `on_success` override the stored actions;
 * - a hook object: `checks: [{id, parameters}]`; without `checks`, its `id` names a stored guardrail.
 */
import { GatewayError } from '../../foundation/errors/gateway-error.js';
import { isObject } from '../../foundation/lib/json.js';
import type { GuardrailActions, StoredGuardrail } from './guardrails-repo.js';
import type { HookEvent } from './check.js';
import { getCheck } from './catalogue.js';

/** The config keys that hold guardrails, with the event they run in. */
export const GUARDRAIL_LISTS = [
  { key: 'input_guardrails', event: 'beforeRequestHook', hook: false },
  { key: 'before_request_hooks', event: 'beforeRequestHook', hook: true },
  { key: 'output_guardrails', event: 'afterRequestHook', hook: false },
  { key: 'after_request_hooks', event: 'afterRequestHook', hook: true },
] as const satisfies ReadonlyArray<{ key: string; event: HookEvent; hook: boolean }>;

export type GuardrailListKey = (typeof GUARDRAIL_LISTS)[number]['key'];

/** Keys of a guardrail object that are not check ids. */
export const ACTION_KEYS: ReadonlySet<string> = new Set(['id', 'deny', 'async', 'on_fail', 'on_success']);

/** `{value, weight, metadata}` recorded with the hook result. */
export type Feedback = Record<string, unknown>;

/** One check use: a catalogue id and its parameters. */
export interface CheckUse {
  id: string;
  parameters: Record<string, unknown>;
}

/** A guardrail ready to run. */
export interface Guardrail {
  /** The item's `id`, the stored guardrail's id, or the item's JSON path. */
  id: string;
  /** JSON path of the config item, e.g. `config.targets[0].input_guardrails[1]`. */
  path: string;
  event: HookEvent;
  checks: readonly CheckUse[];
  /** A failed verdict answers 446 (`deny` on the item, or `on_fail.deny`). */
  denyOnFail: boolean;
  /** A passed verdict answers 446 (`on_success.deny`). */
  denyOnSuccess: boolean;
  /** Runs after the answer without delaying it; results are only logged. */
  async: boolean;
  onFailFeedback?: Feedback;
  onSuccessFeedback?: Feedback;
  /** Set when the checks come from a stored guardrail. */
  storedId?: string;
}

/** A config item, normalised once per compiled config. */
export type ItemPlan =
  { kind: 'inline'; guardrail: Guardrail } | { kind: 'ref'; ref: string; path: string; event: HookEvent; overrides: GuardrailActions };

/** `["default.contains"]` or `.name`: how a key is written in a JSON path. */
export function keyPath(key: string): string {
  return /^[A-Za-z_][A-Za-z0-9_]*$/.test(key) ? `.${key}` : `[${JSON.stringify(key)}]`;
}

/** The check uses of a guardrail object: every key that is not an action key. */
export function inlineChecksOf(item: Record<string, unknown>): CheckUse[] {
  return Object.entries(item)
    .filter(([k]) => !ACTION_KEYS.has(k))
    .map(([id, parameters]) => ({ id, parameters: isObject(parameters) ? parameters : {} }));
}

/** The check uses of a hook object (`checks: [{id, parameters}]`). */
export function hookChecksOf(item: Record<string, unknown>): CheckUse[] {
  if (!Array.isArray(item.checks)) return [];
  return item.checks.filter(isObject).map((c) => ({ id: String(c.id), parameters: isObject(c.parameters) ? c.parameters : {} }));
}

function outcome(v: unknown): { deny?: boolean; feedback?: Feedback } | undefined {
  if (!isObject(v)) return undefined;
  const o: { deny?: boolean; feedback?: Feedback } = {};
  if (typeof v.deny === 'boolean') o.deny = v.deny;
  if (isObject(v.feedback)) o.feedback = v.feedback;
  return o;
}

/** The actions an item (or a stored guardrail's `actions`) declares. */
export function actionsOf(item: Record<string, unknown>): GuardrailActions {
  const a: GuardrailActions = {};
  if (typeof item.deny === 'boolean') a.deny = item.deny;
  if (typeof item.async === 'boolean') a.async = item.async;
  const onFail = outcome(item.on_fail);
  const onSuccess = outcome(item.on_success);
  if (onFail) a.on_fail = onFail;
  if (onSuccess) a.on_success = onSuccess;
  return a;
}

function build(id: string, path: string, event: HookEvent, checks: readonly CheckUse[], a: GuardrailActions, storedId?: string): Guardrail {
  return {
    id,
    path,
    event,
    checks,
    denyOnFail: a.deny ?? a.on_fail?.deny ?? false,
    denyOnSuccess: a.on_success?.deny ?? false,
    async: a.async ?? false,
    onFailFeedback: a.on_fail?.feedback,
    onSuccessFeedback: a.on_success?.feedback,
    storedId,
  };
}

/** Normalises one config item of `list` at `path`. Assumes the config passed validation. */
export function planItem(list: (typeof GUARDRAIL_LISTS)[number], item: unknown, path: string): ItemPlan {
  if (typeof item === 'string') return { kind: 'ref', ref: item, path, event: list.event, overrides: {} };
  const obj = isObject(item) ? item : {};
  const checks = list.hook ? hookChecksOf(obj) : inlineChecksOf(obj);
  const actions = actionsOf(obj);
  if (checks.length === 0 && typeof obj.id === 'string') return { kind: 'ref', ref: obj.id, path, event: list.event, overrides: actions };
  const id = typeof obj.id === 'string' && obj.id.length > 0 ? obj.id : path;
  return { kind: 'inline', guardrail: build(id, path, list.event, checks, actions) };
}

/**
 * The guardrail a reference names: the stored checks with the stored actions, overridden by the
 * item's own. Throws 400 `invalid_config` naming `path` when a stored check cannot run in the event.
 */
export function fromStored(stored: StoredGuardrail, plan: Extract<ItemPlan, { kind: 'ref' }>): Guardrail {
  stored.checks.forEach((c, i) => {
    const def = getCheck(c.id);
    if (def && !def.phases.includes(plan.event)) {
      throw new GatewayError(
        'invalid_config',
        `${plan.path}: stored guardrail '${plan.ref}' check ${i} ("${c.id}") cannot run in ${plan.event}`,
        { param: plan.path },
      );
    }
  });
  const s = stored.actions;
  const o = plan.overrides;
  const merged: GuardrailActions = {
    deny: o.deny ?? s.deny,
    async: o.async ?? s.async,
    on_fail: o.on_fail || s.on_fail ? { ...s.on_fail, ...o.on_fail } : undefined,
    on_success: o.on_success || s.on_success ? { ...s.on_success, ...o.on_success } : undefined,
  };
  return build(stored.id, plan.path, plan.event, stored.checks, merged, stored.id);
}
