import { isObject } from '../lib/json.js';
import type { Usage } from '../spec/chat.js';

/** Special-token text in user input is counted as plain text, never refused. */
const PLAIN = { disallowedSpecial: new Set<string>() };

type Counter = (text: string) => number;
let tokenizer: Promise<Counter> | undefined;

/**
 * The o200k_base token counter of gpt-tokenizer, loaded on first use (about 1 s and 35 MB), so a
 * gateway that never estimates never pays for it. Falls back to characters / 4 if it cannot load.
 */
export function loadTokenCounter(): Promise<Counter> {
  tokenizer ??= import('gpt-tokenizer').then(
    (m): Counter => (text) => m.countTokens(text, PLAIN),
    (): Counter => (text) => Math.ceil(text.length / 4),
  );
  return tokenizer;
}

/** Tokens of a text with `count` (an estimate for models other than OpenAI's). */
function countWith(count: Counter, text: string): number {
  if (!text) return 0;
  try {
    return count(text);
  } catch {
    return Math.ceil(text.length / 4);
  }
}

function textOfContent(content: unknown): string {
  if (typeof content === 'string') return content;
  if (Array.isArray(content)) return content.flatMap((p) => (isObject(p) && typeof p.text === 'string' ? [p.text] : [])).join('\n');
  return '';
}

/** Per-message and per-reply framing tokens of the chat format (as OpenAI counts them). */
const PER_MESSAGE = 4;
const PER_REPLY = 3;

/** Estimated prompt tokens of a request body: chat messages, a completion prompt or an embeddings input. */
export function estimatePromptTokens(count: Counter, body: Record<string, unknown>): number {
  if (Array.isArray(body.messages)) {
    let n = PER_REPLY;
    for (const m of body.messages) if (isObject(m)) n += PER_MESSAGE + countWith(count, textOfContent(m.content));
    return n;
  }
  const input = body.prompt ?? body.input;
  if (typeof input === 'string') return countWith(count, input);
  if (Array.isArray(input)) return input.reduce<number>((n, x) => n + (typeof x === 'string' ? countWith(count, x) : typeof x === 'number' ? 1 : Array.isArray(x) ? x.length : 0), 0);
  return 0;
}

/** Estimated tokens of a request and its answer text, for answers without usage. */
export async function estimateTokens(body: Record<string, unknown>, answerText: string): Promise<number> {
  const count = await loadTokenCounter();
  return estimatePromptTokens(count, body) + countWith(count, answerText);
}

/** The text a choice carries: message or delta content, reasoning, tool-call arguments, completion text. */
export function textOfChoices(choices: unknown): string {
  if (!Array.isArray(choices)) return '';
  let out = '';
  for (const c of choices) {
    if (!isObject(c)) continue;
    if (typeof c.text === 'string') out += c.text;
    const m = isObject(c.message) ? c.message : isObject(c.delta) ? c.delta : undefined;
    if (!m) continue;
    out += textOfContent(m.content);
    if (typeof m.reasoning_content === 'string') out += m.reasoning_content;
    if (Array.isArray(m.tool_calls)) {
      for (const t of m.tool_calls) if (isObject(t) && isObject(t.function)) out += `${t.function.name ?? ''}${t.function.arguments ?? ''}`;
    }
  }
  return out;
}

/**
 * Assembles a streamed answer's text as its chunks pass, for answers that carry no usage (an OpenAI
 * stream passed through byte for byte whose client did not ask for `stream_options.include_usage`).
 */
export class StreamTextTally {
  private parts: string[] = [];
  usage?: Usage;

  push(chunk: Record<string, unknown>): void {
    if (isObject(chunk.usage)) this.usage = chunk.usage as unknown as Usage;
    const t = textOfChoices(chunk.choices);
    if (t) this.parts.push(t);
  }

  get text(): string {
    return this.parts.join('');
  }
}

/** Total tokens of a usage object (`total_tokens`, else prompt + completion, else input + output). */
export function totalTokensOf(u: Usage | undefined): number | undefined {
  if (!u) return undefined;
  const r = u as unknown as Record<string, unknown>;
  const num = (k: string) => (typeof r[k] === 'number' ? (r[k] as number) : undefined);
  const total = num('total_tokens');
  if (total !== undefined) return total;
  const a = num('prompt_tokens') ?? num('input_tokens');
  const b = num('completion_tokens') ?? num('output_tokens');
  return a === undefined && b === undefined ? undefined : (a ?? 0) + (b ?? 0);
}
