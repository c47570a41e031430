/**
 * Request mapping (buildRequest), response mapping (mapResponse) and stream mapping per provider, on the
 * providers' own documentation-shaped fixtures (src/providers/<name>/__fixtures__). OpenAI-compatible rows
 * (groq, together-ai, ...) run the same code as `openai` and are not repeated.
 */
import { readFileSync, existsSync } from 'node:fs';
import { join } from 'node:path';
import { COMPLETION_BODY, STREAM_FRAMES } from '../fake-upstream.mjs';

const REQUEST = {
  model: 'bench-model',
  messages: [
    { role: 'system', content: 'You are a terse assistant.' },
    { role: 'user', content: 'Say hello in five words.' },
  ],
  max_tokens: 64,
};

/** Per provider: extra target config, the chat response fixture and the stream fixture (paths under src/providers/<name>/__fixtures__). */
const CASES = {
  openai: { response: () => JSON.parse(COMPLETION_BODY), stream: () => Buffer.concat(STREAM_FRAMES) },
  anthropic: { response: 'message-text.json', stream: 'stream-text.sse' },
  google: { response: 'generate-content-text.json', stream: 'stream-text.sse' },
  bedrock: {
    config: { cloud1_access_key_id: 'AKIDBENCH', cloud1_secret_access_key: 'bench/secret', cloud1_region: 'us-east-1' },
    response: 'converse-response.json',
  },
  cohere: { response: 'cohere-chat.json', stream: 'cohere-stream.txt' },
  'azure-openai': {
    config: { resource_name: 'bench', deployment_id: 'gpt-4o', api_version: '2024-10-21' },
    response: 'azure-openai-chat.json',
  },
  'azure-ai': { response: 'azure-ai-chat.json' },
};

function fixture(root, provider, spec) {
  if (typeof spec === 'function') return spec();
  if (!spec) return undefined;
  const file = join(root, 'src/providers', provider, '__fixtures__', spec);
  if (!existsSync(file)) return undefined;
  return spec.endsWith('.json') ? JSON.parse(readFileSync(file, 'utf8')) : readFileSync(file);
}

/** Registers a task per provider and mapping that exists; returns notes on what was left out and why. */
export async function register(bench, dist, root) {
  const { getProvider } = await dist('providers/registry.js');
  const { HttpClient } = await dist('foundation/lib/http-client.js');
  const { systemClock } = await dist('foundation/lib/clock.js');
  const notes = [];
  const http = new HttpClient();
  for (const [name, spec] of Object.entries(CASES)) {
    const adapter = getProvider(name);
    const chat = adapter?.endpoints.chat;
    if (!chat) {
      notes.push(`${name}: not registered, not benched.`);
      continue;
    }
    const ctx = (stream) => ({
      target: {
        provider: name,
        apiKey: 'sk-bench',
        customHost: 'http://127.0.0.1:9/v1',
        config: { provider: name, ...spec.config },
        forwardHeaders: {},
      },
      stream,
      signal: new AbortController().signal,
      http,
      clock: systemClock,
    });
    const plain = ctx(false);
    try {
      await chat.buildRequest(REQUEST, plain);
      bench.add(`${name}: buildRequest (chat)`, async () => {
        await chat.buildRequest(REQUEST, plain);
      });
    } catch (err) {
      notes.push(`${name}: buildRequest needs more than the bench's target (${err.message}); not benched.`);
    }
    const response = fixture(root, name, spec.response);
    if (response !== undefined) {
      chat.mapResponse(response, REQUEST, plain);
      bench.add(`${name}: mapResponse (chat fixture)`, () => chat.mapResponse(response, REQUEST, plain));
    }
    const body = fixture(root, name, spec.stream);
    if (body !== undefined && chat.createStreamMapper) {
      const streamed = ctx(true);
      const run = () => {
        const m = chat.createStreamMapper({ ...REQUEST, stream: true }, streamed);
        return m.push(body).length + m.end().length;
      };
      const chunks = run();
      bench.add(`${name}: stream mapping (${body.length} B fixture → ${chunks} chunks)`, run);
    }
  }
  return notes;
}
