import { afterAll, beforeAll, beforeEach } from 'vitest';
import type OpenAI from 'openai';
import { startGateway, type TestGateway } from './gateway.js';

/** A 1×1 PNG, as base64 (image inputs of the provider suites). */
export const PNG_1X1 = 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==';

/** What the provider end-to-end suites need of a provider fake. */
export interface ProviderFake {
  url: string;
  options: { frameDelayMs?: number };
  reset(): void;
  close(): Promise<void>;
}

/** One gateway and one provider fake for a test file, and an openai client that routes to the fake. */
export interface ProviderSuite<F extends ProviderFake> {
  readonly gw: TestGateway;
  readonly fake: F;
  /** An openai SDK client (no SDK retries) whose requests carry the base config plus `overrides` as `x-gateway-config`. */
  client(overrides?: Record<string, unknown>): OpenAI;
}

/**
 * Registers the hooks every provider suite shares: the fake and a gateway started once for the file
 * (closed after it), and the fake reset with no frame delay before each test. `config` is the
 * target's inline config for a fake (provider, credentials, `custom_host`).
 */
export function useProviderSuite<F extends ProviderFake>(
  startFake: () => Promise<F>,
  config: (fake: F) => Record<string, unknown>,
): ProviderSuite<F> {
  let gw: TestGateway | undefined;
  let fake: F | undefined;
  beforeAll(async () => {
    fake = await startFake();
    gw = await startGateway();
  });
  afterAll(async () => {
    await gw?.close();
    await fake?.close();
  });
  beforeEach(() => {
    fake!.reset();
    fake!.options.frameDelayMs = 0;
  });
  return {
    get gw() {
      return gw!;
    },
    get fake() {
      return fake!;
    },
    client(overrides = {}) {
      return gw!.openai({ 'x-gateway-config': JSON.stringify({ ...config(fake!), ...overrides }) }).withOptions({ maxRetries: 0 });
    },
  };
}

/** A streamed chat read to its end: the text, the last finish reason, the usage chunk and the distinct chunk ids. */
export interface CollectedChatStream {
  text: string;
  finish: string | null;
  usage?: OpenAI.CompletionUsage;
  ids: Set<string>;
}

/** Reads a chat completion stream to its end. */
export async function collectChatStream(stream: AsyncIterable<OpenAI.Chat.Completions.ChatCompletionChunk>): Promise<CollectedChatStream> {
  const out: CollectedChatStream = { text: '', finish: null, ids: new Set() };
  for await (const chunk of stream) {
    out.ids.add(chunk.id);
    out.text += chunk.choices[0]?.delta.content ?? '';
    out.finish = chunk.choices[0]?.finish_reason ?? out.finish;
    if (chunk.usage) out.usage = chunk.usage;
  }
  return out;
}

/** Reads a chat stream until it ends or fails: the text that arrived and the error (undefined when it ended cleanly). */
export async function readChatStreamUntilError(
  stream: AsyncIterable<OpenAI.Chat.Completions.ChatCompletionChunk>,
): Promise<{ text: string; error: unknown }> {
  let text = '';
  try {
    for await (const chunk of stream) text += chunk.choices[0]?.delta.content ?? '';
  } catch (error) {
    return { text, error };
  }
  return { text, error: undefined };
}
