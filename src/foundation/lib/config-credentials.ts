import type { SecretBox } from './secret-box.js';
import { asSealed, credentialHint, isCredentialKey, openCredential, sealCredential } from './credential-settings.js';
import { isObject, tryParseJson } from './json.js';

/**
 * A credential member of a routing config: the object holding it, its name there and its JSON path
 * (`config.targets[0].api_key`), the path also being what a sealed value is bound to.
 */
interface Slot {
  holder: Record<string, unknown>;
  key: string;
  path: string;
}

const HOOK_LISTS = ['before_request_hooks', 'after_request_hooks'] as const;
const GUARDRAIL_LISTS = ['input_guardrails', 'output_guardrails'] as const;
/** Members of an inline guardrail item that are not check ids. */
const GUARDRAIL_ITEM_KEYS = new Set(['id', 'deny', 'async', 'on_fail', 'on_success']);

const member = (path: string, key: string) => (/^[A-Za-z_][A-Za-z0-9_]*$/.test(key) ? `${path}.${key}` : `${path}[${JSON.stringify(key)}]`);
const present = (v: unknown) => v !== undefined && v !== null && v !== '';

/**
 * The credential members of a check's parameters: those named like a credential (see
 * `isCredentialKey`) and every value of `headers` (a webhook's `Authorization` …). `headers` sent as a
 * JSON string is turned into the object it holds, so each value can be sealed alone.
 */
function paramSlots(params: Record<string, unknown>, path: string, out: Slot[]): void {
  for (const [k, v] of Object.entries(params)) {
    if (k === 'headers') {
      const headers = typeof v === 'string' ? tryParseJson(v) : v;
      if (!isObject(headers)) continue;
      params.headers = headers;
      for (const [name, value] of Object.entries(headers))
        if (present(value)) out.push({ holder: headers, key: name, path: member(member(path, 'headers'), name) });
    } else if (isCredentialKey(k) && present(v)) out.push({ holder: params, key: k, path: member(path, k) });
  }
}

/** The credential members of one config node and of the nodes below it (`targets`), in document order. */
function nodeSlots(node: Record<string, unknown>, path: string, out: Slot[]): void {
  for (const [k, v] of Object.entries(node))
    if (isCredentialKey(k) && present(v)) out.push({ holder: node, key: k, path: member(path, k) });
  for (const list of HOOK_LISTS) {
    const hooks = node[list];
    if (!Array.isArray(hooks)) continue;
    hooks.forEach((hook, i) => {
      if (!isObject(hook) || !Array.isArray(hook.checks)) return;
      hook.checks.forEach((check, j) => {
        if (isObject(check) && isObject(check.parameters))
          paramSlots(check.parameters, `${path}.${list}[${i}].checks[${j}].parameters`, out);
      });
    });
  }
  for (const list of GUARDRAIL_LISTS) {
    const items = node[list];
    if (!Array.isArray(items)) continue;
    items.forEach((item, i) => {
      if (!isObject(item)) return;
      for (const [k, v] of Object.entries(item))
        if (!GUARDRAIL_ITEM_KEYS.has(k) && isObject(v)) paramSlots(v, member(`${path}.${list}[${i}]`, k), out);
    });
  }
  if (Array.isArray(node.targets)) node.targets.forEach((t, i) => isObject(t) && nodeSlots(t, `${path}.targets[${i}]`, out));
}

/** The credential members of a stored guardrail `{checks}`: each check's parameters (`checks[0].parameters.headers.Authorization`). */
function guardrailSlots(doc: Record<string, unknown>, out: Slot[]): void {
  if (!Array.isArray(doc.checks)) return;
  doc.checks.forEach((check, i) => {
    if (isObject(check) && isObject(check.parameters)) paramSlots(check.parameters, `checks[${i}].parameters`, out);
  });
}

/**
 * What holds the credentials: a routing config (`config`, the default) or a stored guardrail's
 * `{checks}` (`guardrail`, from `/v1/guardrails`); the same sealing, hints and save-back serve both.
 */
export type CredentialDocument = 'config' | 'guardrail';

/** A deep copy of the document and its credential members (the slots point into the copy). */
function slotsOf(config: Record<string, unknown>, kind: CredentialDocument = 'config'): { copy: Record<string, unknown>; slots: Slot[] } {
  const copy = structuredClone(config);
  const slots: Slot[] = [];
  if (kind === 'guardrail') guardrailSlots(copy, slots);
  else nodeSlots(copy, 'config', slots);
  return { copy, slots };
}

const contextOf = (configId: string, path: string) => `${configId}:${path}`;

/**
 * The config as stored: each credential member (`api_key`, `Authorization`, a provider's credential
 * settings such as `cloud1_secret_access_key` or `cloud2_service_account_json`, and in guardrail and
 * hook checks the `headers` values and credential-named parameters), at any depth of `targets`, sealed
 * with the box and bound to `<config id>:<JSON path>`, beside its hint (a guardrail's `{checks}`,
 * `kind` `guardrail`: each check's parameters, bound to `<guardrail id>:checks[i].parameters…`). Values already sealed are left
 * alone, so this also seals rows written before configs were sealed.
 */
export function sealConfigCredentials(
  box: SecretBox,
  configId: string,
  config: Record<string, unknown>,
  kind: CredentialDocument = 'config',
): Record<string, unknown> {
  const { copy, slots } = slotsOf(config, kind);
  for (const s of slots)
    if (!asSealed(s.holder[s.key])) s.holder[s.key] = sealCredential(box, contextOf(configId, s.path), s.holder[s.key]);
  return copy;
}

/** Whether any credential member of a stored config is still in plaintext. */
export function hasPlainConfigCredentials(config: Record<string, unknown>, kind: CredentialDocument = 'config'): boolean {
  return slotsOf(config, kind).slots.some((s) => !asSealed(s.holder[s.key]));
}

/** The hint a credential member is answered with: a sealed value's own, or a plaintext value's (never the value). */
function hintOf(v: unknown): string {
  return asSealed(v)?.hint ?? credentialHint(typeof v === 'string' ? v : JSON.stringify(v));
}

/** The config as answers show it: each credential member replaced by its hint (`sk-…abcd`). */
export function maskConfigCredentials(config: Record<string, unknown>, kind: CredentialDocument = 'config'): Record<string, unknown> {
  const { copy, slots } = slotsOf(config, kind);
  for (const s of slots) s.holder[s.key] = hintOf(s.holder[s.key]);
  return copy;
}

/**
 * The config in plaintext, for the runtime and for checks that need the real values (opened once
 * when the configs section loads, never per request). Throws when a sealed value does not open.
 */
export function openConfigCredentials(
  box: SecretBox,
  configId: string,
  config: Record<string, unknown>,
  kind: CredentialDocument = 'config',
): Record<string, unknown> {
  const { copy, slots } = slotsOf(config, kind);
  for (const s of slots) {
    const sealed = asSealed(s.holder[s.key]);
    if (sealed) s.holder[s.key] = openCredential(box, contextOf(configId, s.path), sealed);
  }
  return copy;
}

/**
 * A config sent back on update with each credential member that is the hint of a stored one replaced
 * by the stored plaintext (`stored` opened), so saving an answer back keeps the secrets. A hint is
 * looked up at the same JSON path first, then among the stored members of the same name whose hint it
 * is, when exactly one is (targets moved around). Any other value is a new credential, kept as sent.
 */
export function keepMaskedConfigCredentials(
  stored: Record<string, unknown>,
  next: Record<string, unknown>,
  kind: CredentialDocument = 'config',
): Record<string, unknown> {
  const before = slotsOf(stored, kind).slots.map((s) => ({
    path: s.path,
    key: s.key,
    value: s.holder[s.key],
    hint: hintOf(s.holder[s.key]),
  }));
  const byPath = new Map(before.map((b) => [b.path, b]));
  const { copy, slots } = slotsOf(next, kind);
  for (const s of slots) {
    const sent = s.holder[s.key];
    if (typeof sent !== 'string') continue;
    const same = byPath.get(s.path);
    if (same && same.hint === sent) {
      s.holder[s.key] = same.value;
      continue;
    }
    const named = before.filter((b) => b.key === s.key && b.hint === sent);
    if (named.length === 1) s.holder[s.key] = named[0]!.value;
  }
  return copy;
}

/** The shape of a hint (`credentialHint`): three characters, `…`, four characters; or `…` alone. */
const HINT = /^(?:[\s\S]{3}…[\s\S]{4}|…)$/;

/**
 * The JSON path of the first credential member that still holds a hint (`sk-…abcd`) — one that
 * matched no stored credential — or undefined. Storing it would replace a secret with its own mask.
 */
export function leftoverHintPath(config: Record<string, unknown>, kind: CredentialDocument = 'config'): string | undefined {
  return slotsOf(config, kind).slots.find((s) => typeof s.holder[s.key] === 'string' && HINT.test(s.holder[s.key] as string))?.path;
}

/** A guardrail or hook item of a config (`input_guardrails[i]` …) with its credential members masked. */
export function maskConfigItem(list: string, item: unknown): unknown {
  return (maskConfigCredentials({ [list]: [item] })[list] as unknown[])[0];
}
