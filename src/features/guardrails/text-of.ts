/**
 * Text extraction and rewriting for guardrails, over the common (OpenAI) schema:
 * chat completions, text completions, embeddings and the Responses API shapes.
 *
 * Scope: `requestTextOf` reads the LAST message of a chat request (the turn being sent), the prompt
 * of a completion, or the input of an embeddings / responses request. `mapRequestTexts` rewrites
 * EVERY text piece of the request (all messages), so a redaction covers earlier turns too.
 */
import { isObject } from '../../foundation/lib/json.js';

/** Joins the text of a message `content` (a string or an array of parts). */
function contentText(content: unknown): string {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return '';
  const texts: string[] = [];
  for (const part of content) {
    if (typeof part === 'string') texts.push(part);
    else if (isObject(part) && typeof part.text === 'string') texts.push(part.text);
  }
  return texts.join('\n');
}

function stringsOf(value: unknown): string {
  if (typeof value === 'string') return value;
  if (Array.isArray(value)) return value.filter((v): v is string => typeof v === 'string').join('\n');
  return '';
}

/**
 * The request text checks read before the request: the last chat message's text, a completion's
 * prompt (string or strings joined by newlines), or an embeddings / responses `input`.
 */
export function requestTextOf(body: unknown): string {
  if (!isObject(body)) return '';
  if (Array.isArray(body.messages)) {
    const last = body.messages[body.messages.length - 1];
    return isObject(last) ? contentText(last.content) : '';
  }
  if (body.prompt !== undefined) return stringsOf(body.prompt);
  if (Array.isArray(body.input) && body.input.some(isObject)) {
    const last = body.input[body.input.length - 1];
    return isObject(last) ? contentText(last.content) : stringsOf(last);
  }
  if (body.input !== undefined) return stringsOf(body.input);
  return '';
}

/**
 * The answer text of a chat completion (every choice's content, joined by newlines), a text
 * completion (choices[].text) or a Responses API object (`output_text` or output message parts).
 */
export function responseTextOf(body: unknown): string {
  if (!isObject(body)) return '';
  if (Array.isArray(body.choices)) {
    const texts: string[] = [];
    for (const choice of body.choices) {
      if (!isObject(choice)) continue;
      if (isObject(choice.message)) texts.push(contentText(choice.message.content));
      else if (typeof choice.text === 'string') texts.push(choice.text);
    }
    return texts.join('\n');
  }
  if (typeof body.output_text === 'string') return body.output_text;
  if (Array.isArray(body.output)) {
    return body.output
      .filter(isObject)
      .map((item) => contentText(item.content))
      .filter((t) => t.length > 0)
      .join('\n');
  }
  return '';
}

/** Collects the answer text of a stream of chat or text-completion chunks, per choice index. */
export class StreamTextAssembler {
  private readonly byIndex = new Map<number, string>();

  /** Adds one parsed chunk (`chat.completion.chunk` or `text_completion`); other values are ignored. */
  push(chunk: unknown): void {
    if (!isObject(chunk) || !Array.isArray(chunk.choices)) return;
    for (const choice of chunk.choices) {
      if (!isObject(choice)) continue;
      const index = typeof choice.index === 'number' ? choice.index : 0;
      let piece = '';
      if (isObject(choice.delta) && typeof choice.delta.content === 'string') piece = choice.delta.content;
      else if (typeof choice.text === 'string') piece = choice.text;
      if (piece) this.byIndex.set(index, (this.byIndex.get(index) ?? '') + piece);
    }
  }

  /** The text so far; several choices are joined by newlines in index order. */
  text(): string {
    return [...this.byIndex.entries()]
      .sort((a, b) => a[0] - b[0])
      .map(([, t]) => t)
      .join('\n');
  }
}

/** `StreamTextAssembler` over a whole list of chunks. */
export function assembleStreamText(chunks: Iterable<unknown>): string {
  const asm = new StreamTextAssembler();
  for (const c of chunks) asm.push(c);
  return asm.text();
}

/** A string rewrite applied to each text piece. */
export type TextRewrite = (text: string) => string;

function mapContent(content: unknown, fn: TextRewrite): unknown {
  if (typeof content === 'string') return fn(content);
  if (!Array.isArray(content)) return content;
  return content.map((part) => {
    if (typeof part === 'string') return fn(part);
    if (isObject(part) && typeof part.text === 'string') return { ...part, text: fn(part.text) };
    return part;
  });
}

function mapStrings(value: unknown, fn: TextRewrite): unknown {
  if (typeof value === 'string') return fn(value);
  if (Array.isArray(value)) return value.map((v) => (typeof v === 'string' ? fn(v) : isObject(v) ? mapItem(v, fn) : v));
  return value;
}

function mapItem(item: Record<string, unknown>, fn: TextRewrite): Record<string, unknown> {
  return item.content === undefined ? item : { ...item, content: mapContent(item.content, fn) };
}

/**
 * A copy of a request body with every text piece rewritten: all chat messages' contents (strings and
 * text parts), a completion prompt, an embeddings / responses input. Other fields are shared, not copied.
 */
export function mapRequestTexts(body: Record<string, unknown>, fn: TextRewrite): Record<string, unknown> {
  const out: Record<string, unknown> = { ...body };
  if (Array.isArray(body.messages)) out.messages = body.messages.map((m) => (isObject(m) ? mapItem(m, fn) : m));
  if (body.prompt !== undefined) out.prompt = mapStrings(body.prompt, fn);
  if (body.input !== undefined) out.input = mapStrings(body.input, fn);
  return out;
}

/**
 * A copy of a response body with every answer text rewritten: chat choices' message content, text
 * completion choices' text, Responses API `output_text` and output message parts.
 */
export function mapResponseTexts(body: unknown, fn: TextRewrite): unknown {
  if (!isObject(body)) return body;
  const out: Record<string, unknown> = { ...body };
  if (Array.isArray(body.choices)) {
    out.choices = body.choices.map((c) => {
      if (!isObject(c)) return c;
      if (isObject(c.message)) return { ...c, message: mapItem(c.message, fn) };
      if (typeof c.text === 'string') return { ...c, text: fn(c.text) };
      return c;
    });
  }
  if (typeof body.output_text === 'string') out.output_text = fn(body.output_text);
  if (Array.isArray(body.output)) out.output = body.output.map((o) => (isObject(o) ? mapItem(o, fn) : o));
  return out;
}

/** True when a chat completion answered with tool calls (its text may then be empty). */
export function hasToolCalls(body: unknown): boolean {
  if (!isObject(body) || !Array.isArray(body.choices)) return false;
  return body.choices.some(
    (c) => isObject(c) && isObject(c.message) && Array.isArray(c.message.tool_calls) && c.message.tool_calls.length > 0,
  );
}
