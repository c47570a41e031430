/**
 * The one registry of built-in guardrail checks: check id → definition (run, validateParams,
 * phases, reads, mutator). Callers validate config items with `validateCheck` and run them with
 * `runCheck`.
 */
import { GatewayError } from '../../foundation/errors/gateway-error.js';
import type { CheckDefinition, CheckInput, CheckResult, HookEvent } from './check.js';
import { allLowercase } from './checks/all-lowercase.js';
import { allUppercase } from './checks/all-uppercase.js';
import { allowedRequestTypes } from './checks/allowed-request-types.js';
import { characterCount } from './checks/character-count.js';
import { containsCode } from './checks/contains-code.js';
import { contains } from './checks/contains.js';
import { endsWith } from './checks/ends-with.js';
import { inlineImage } from './checks/inline-image.js';
import { jsonKeys } from './checks/json-keys.js';
import { jsonSchema } from './checks/json-schema.js';
import { modelWhitelist } from './checks/model-whitelist.js';
import { notNull } from './checks/not-null.js';
import { pii } from './checks/pii.js';
import { regexMatch } from './checks/regex-match.js';
import { requiredMetadataKeyPairs } from './checks/required-metadata-key-pairs.js';
import { requiredMetadataKeys } from './checks/required-metadata-keys.js';
import { sentenceCount } from './checks/sentence-count.js';
import { validUrls } from './checks/valid-urls.js';
import { webhook } from './checks/webhook.js';
import { wordCount } from './checks/word-count.js';

const ALL: CheckDefinition[] = [
  regexMatch,
  contains,
  wordCount,
  sentenceCount,
  characterCount,
  jsonSchema,
  jsonKeys,
  validUrls,
  containsCode,
  endsWith,
  allUppercase,
  allLowercase,
  modelWhitelist,
  allowedRequestTypes,
  notNull,
  requiredMetadataKeys,
  requiredMetadataKeyPairs,
  pii,
  inlineImage,
  webhook,
];

/** Every built-in check by id. */
export const CHECKS: Readonly<Record<string, CheckDefinition>> = Object.freeze(Object.fromEntries(ALL.map((c) => [c.id, c])));

/** The definition for `id`, or undefined. */
export function getCheck(id: string): CheckDefinition | undefined {
  return Object.hasOwn(CHECKS, id) ? CHECKS[id] : undefined;
}

/** True when `id` names a built-in check (an inline guardrail item's extra keys are check ids). */
export function isCheckId(id: string): boolean {
  return getCheck(id) !== undefined;
}

/**
 * Validates one check use at config time. Throws GatewayError('invalid_config') with `param` set to
 * `path` (default: the id) or `${path}.${param}`: unknown check, bad parameters, or — when `event`
 * is given — a check that does not support that event.
 */
export function validateCheck(id: string, params: unknown, path: string = id, event?: HookEvent): void {
  const def = getCheck(id);
  if (!def) throw new GatewayError('invalid_config', `${path}: unknown guardrail check "${id}"`, { param: path });
  if (event && !def.phases.includes(event)) {
    throw new GatewayError('invalid_config', `${path}: check "${id}" cannot run in ${event} (supports ${def.phases.join(', ')})`, {
      param: path,
    });
  }
  def.validateParams(params, path);
}

/** One check's outcome as recorded in `hook_results`. */
export interface CheckOutcome extends CheckResult {
  id: string;
  /** Milliseconds the check took. */
  execution_time: number;
}

/** Settles when `running` does, or with `undefined` once `ms` elapsed. */
function withinBudget<T>(running: Promise<T>, ms: number): Promise<T | undefined> {
  let timer: NodeJS.Timeout | undefined;
  const spent = new Promise<undefined>((resolve) => {
    timer = setTimeout(() => resolve(undefined), ms);
  });
  return Promise.race([running, spent]).finally(() => clearTimeout(timer));
}

/**
 * Runs one check within its time budget (`CheckDefinition.budget`). Never throws: an unknown id,
 * invalid parameters or an exception inside the check become `verdict: false` with `error` (fail
 * closed); a check that overruns its budget is left behind and gets the budget's verdict with
 * `error`; network checks apply their own failOnError.
 */
export async function runCheck(id: string, input: CheckInput, params: Record<string, unknown>): Promise<CheckOutcome> {
  const started = performance.now();
  const elapsed = (): number => Math.round((performance.now() - started) * 100) / 100;
  const def = getCheck(id);
  if (!def) return { id, verdict: false, error: `unknown guardrail check "${id}"`, execution_time: 0 };
  const budget = def.budget(params);
  try {
    const result = await withinBudget((async () => def.run(input, params))(), budget.ms);
    if (result === undefined) {
      const error = `the check did not finish within its budget of ${budget.ms} ms`;
      return {
        id,
        verdict: budget.failOpen,
        error,
        explanation: `${error}; failing ${budget.failOpen ? 'open' : 'closed'}.`,
        execution_time: elapsed(),
      };
    }
    return { id, ...result, execution_time: elapsed() };
  } catch (err) {
    return { id, verdict: false, error: err instanceof Error ? err.message : String(err), execution_time: elapsed() };
  }
}
