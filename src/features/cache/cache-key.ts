import { canonicalJson, isObject } from '../../foundation/lib/json.js';
import { sha256Hex } from '../../foundation/lib/hash.js';
import type { ProviderEndpointKind, ProviderTarget } from '../../providers/provider.js';

/** Request fields that do not change the answer: removed before hashing. */
const ANSWER_NEUTRAL = [
  'stream',
  'stream_options',
  'user',
  'metadata',
  'store',
  'safety_identifier',
  'prompt_cache_key',
  'prompt_cache_retention',
];

/** Config keys of a leaf that steer routing, not the provider's answer: left out of the credential identity. */
const ROUTING_KEYS = new Set([
  'strategy',
  'targets',
  'name',
  'weight',
  'on_status_codes',
  'retry',
  'cache',
  'cb_config',
  'request_timeout',
  'override_params',
  'forward_headers',
  'strict_compat_compliance',
  'before_request_hooks',
  'after_request_hooks',
  'input_guardrails',
  'output_guardrails',
  'prompt_id',
]);

/** What a cache key is made of. */
export interface KeyInput {
  workspaceId: string;
  endpoint: ProviderEndpointKind;
  target: ProviderTarget;
  /** The body after `override_params`. */
  body: Record<string, unknown>;
}

/** The semantic part of a request: the text to embed and the bucket of everything else. */
export interface SemanticKey {
  text: string;
  bucket: string;
}

/**
 * The exact cache key: SHA-256 over the workspace, the endpoint, the resolved target (provider, custom
 * host, a hash of the credential and provider settings) and the normalised body (canonical key order,
 * answer-neutral fields removed; the model is in the body after overrides). Different workspaces or
 * credentials never share a key.
 */
export function exactKey(k: KeyInput): string {
  return sha256Hex(canonicalJson({ v: 1, ...scope(k), b: normaliseBody(k.body) }));
}

/**
 * The semantic key of a chat or text-completion request: the last user message's text, and a bucket
 * hashing the same scope as `exactKey` plus the body with that text taken out (which must then match
 * exactly). Undefined when there is no text to embed (embeddings, no user message, empty text).
 */
export function semanticKey(k: KeyInput): SemanticKey | undefined {
  const body = normaliseBody(k.body);
  const split = k.endpoint === 'chat' ? splitChat(body) : k.endpoint === 'completions' ? splitPrompt(body) : undefined;
  if (!split || split.text.trim() === '') return undefined;
  return { text: split.text, bucket: sha256Hex(canonicalJson({ v: 1, semantic: true, ...scope(k), b: split.rest })) };
}

/** The body without answer-neutral fields. */
export function normaliseBody(body: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = { ...body };
  for (const f of ANSWER_NEUTRAL) delete out[f];
  return out;
}

/** A hash of everything that authenticates and configures the target (the secret never appears in a key). */
export function credentialHash(target: ProviderTarget): string {
  const config: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(target.config)) if (!ROUTING_KEYS.has(k)) config[k] = v;
  return sha256Hex(canonicalJson({ key: target.apiKey ?? null, config }));
}

function scope(k: KeyInput): Record<string, unknown> {
  return { w: k.workspaceId, e: k.endpoint, p: k.target.provider, h: k.target.customHost ?? null, c: credentialHash(k.target) };
}

function splitChat(body: Record<string, unknown>): { text: string; rest: Record<string, unknown> } | undefined {
  const messages = body.messages;
  if (!Array.isArray(messages)) return undefined;
  let i = messages.length - 1;
  while (i >= 0 && !(isObject(messages[i]) && messages[i].role === 'user')) i--;
  if (i < 0) return undefined;
  const message = messages[i] as Record<string, unknown>;
  const { text, others } = splitContent(message.content);
  const rest = [...messages];
  rest[i] = { ...message, content: others };
  return { text, rest: { ...body, messages: rest } };
}

/** Text parts are embedded; any other part (images, audio) stays in the bucket and must match exactly. */
function splitContent(content: unknown): { text: string; others: unknown[] } {
  if (typeof content === 'string') return { text: content, others: [] };
  if (!Array.isArray(content)) return { text: '', others: [] };
  const texts: string[] = [];
  const others: unknown[] = [];
  for (const part of content) {
    if (isObject(part) && part.type === 'text' && typeof part.text === 'string') texts.push(part.text);
    else others.push(part);
  }
  return { text: texts.join('\n'), others };
}

function splitPrompt(body: Record<string, unknown>): { text: string; rest: Record<string, unknown> } | undefined {
  const p = body.prompt;
  const text = typeof p === 'string' ? p : Array.isArray(p) && p.length === 1 && typeof p[0] === 'string' ? p[0] : undefined;
  if (text === undefined) return undefined;
  return { text, rest: { ...body, prompt: null } };
}
