import { isObject } from '../../foundation/lib/json.js';
import type { Usage } from '../../foundation/spec/chat.js';
import { loadTokenCounter, type TokenCounter } from '../../foundation/lib/token-counter.js';

function textOfContent(content: unknown): string {
  if (typeof content === 'string') return content;
  if (Array.isArray(content)) return content.flatMap((p) => (isObject(p) && typeof p.text === 'string' ? [p.text] : [])).join('\n');
  return '';
}

/** Per-message and per-reply framing tokens of the chat format (as OpenAI counts them). */
const PER_MESSAGE = 4;
const PER_REPLY = 3;

/** Estimated prompt tokens of a request body: chat messages, a completion prompt or an embeddings input. */
export function estimatePromptTokens(count: TokenCounter, body: Record<string, unknown>): number {
  if (Array.isArray(body.messages)) {
    let n = PER_REPLY;
    for (const m of body.messages) if (isObject(m)) n += PER_MESSAGE + count(textOfContent(m.content));
    return n;
  }
  const input = body.prompt ?? body.input;
  if (typeof input === 'string') return count(input);
  if (Array.isArray(input))
    return input.reduce<number>(
      (n, x) => n + (typeof x === 'string' ? count(x) : typeof x === 'number' ? 1 : Array.isArray(x) ? x.length : 0),
      0,
    );
  return 0;
}

/** Estimated tokens of a request and its answer text, for answers without usage. */
export async function estimateTokens(body: Record<string, unknown>, answerText: string): Promise<number> {
  const count = await loadTokenCounter();
  return estimatePromptTokens(count, body) + count(answerText);
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
 * Watches a streamed answer's chunks: keeps the usage chunk (OpenAI-compatible providers are always
 * asked for one) and assembles the text, for providers whose streams report no usage.
 */
export class StreamTextTally {
  private parts: string[] = [];
  usage?: Usage;
  /**
   * Whether the text is read (a tokens policy estimates from it when the stream has no usage): without
   * it the tally needs the usage chunk alone, and a passthrough stream parses no other chunk for it.
   */
  needsText = false;

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
