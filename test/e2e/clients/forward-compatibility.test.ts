import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startGateway, type TestGateway } from '../../helpers/gateway.js';
import { startFakeOpenAI, type FakeOpenAI } from '../../fakes/openai/server.js';
import { startFakeAnthropic, type FakeAnthropic } from '../../fakes/anthropic/server.js';

const OPENAI_KEY = 'sk-fwd';
const ANTHROPIC_KEY = 'sk-ant-fwd';

/**
 * decisions.md, "Forward compatibility": members and enum values the gateway does not know pass through
 * untouched to a target that speaks the API natively; a translation maps, drops or refuses them by name.
 */
describe('forward compatibility of request bodies', () => {
  let openai: FakeOpenAI;
  let anthropic: FakeAnthropic;
  let gw: TestGateway;
  const to = (config: Record<string, unknown>) => ({ 'x-gateway-config': JSON.stringify(config) });
  const viaOpenAI = () => to({ provider: 'openai', api_key: OPENAI_KEY, custom_host: openai.url });
  const viaCompatible = () => to({ provider: 'vllm', api_key: OPENAI_KEY, custom_host: openai.url });
  const viaAnthropic = () => to({ provider: 'anthropic', api_key: ANTHROPIC_KEY, custom_host: anthropic.url });
  const post = (path: string, headers: Record<string, string>, body: unknown) =>
    gw.fetch(path, { method: 'POST', headers, body: JSON.stringify(body) });
  const errorOf = async (res: Response) => ((await res.json()) as { error: { message: string; param: string | null } }).error;

  beforeAll(async () => {
    openai = await startFakeOpenAI({ apiKey: OPENAI_KEY });
    anthropic = await startFakeAnthropic({ apiKey: ANTHROPIC_KEY });
    gw = await startGateway();
  });
  afterAll(async () => {
    await gw?.close();
    await openai?.close();
    await anthropic?.close();
  });
  beforeEach(() => {
    openai.reset();
    anthropic.reset();
  });

  describe('chat completions', () => {
    const body = {
      model: 'gpt-x',
      messages: [
        { role: 'user', content: 'hi' },
        { role: 'critic', content: 'be brief' },
      ],
      verbosity: 'low',
      new_member: { a: 1 },
    };

    it('a new role and unknown members reach an OpenAI target untouched', async () => {
      const res = await post('/v1/chat/completions', viaOpenAI(), body);
      expect(res.status).toBe(200);
      expect(openai.lastRequest!.body).toMatchObject(body);
    });

    it('a translating target refuses a role it cannot map, naming it', async () => {
      const res = await post('/v1/chat/completions', viaAnthropic(), body);
      expect(res.status).toBe(400);
      expect((await errorOf(res)).param).toBe('messages[1].role');
      expect(anthropic.requests).toHaveLength(0);
    });
  });

  describe('Messages', () => {
    const body = {
      model: 'claude-x',
      max_tokens: 1000,
      messages: [
        { role: 'user', content: 'hi' },
        { role: 'assistant', content: 'hello' },
        { role: 'system', content: [{ type: 'text', text: 'now be brief' }] },
        { role: 'user', content: 'again' },
      ],
      thinking: { type: 'adaptive', display: 'omitted' },
      output_config: { effort: 'max' },
      context_management: { edits: [{ type: 'clear_thinking_20251015', keep: 'all' }] },
      tool_choice: { type: 'auto' },
      tools: [{ name: 'look', input_schema: { type: 'object' }, defer_loading: true }],
    };

    it('reach an Anthropic target untouched', async () => {
      const res = await post('/v1/messages', { ...viaAnthropic(), 'anthropic-version': '2023-06-01' }, body);
      expect(res.status, await res.clone().text()).toBe(200);
      expect(anthropic.lastRequest!.body).toEqual(body);
    });

    it('are mapped for a chat target: the system turn in place, adaptive thinking as reasoning_effort, the rest dropped', async () => {
      const res = await post('/v1/messages', viaCompatible(), body);
      expect(res.status, await res.clone().text()).toBe(200);
      const chat = openai.lastRequest!.body;
      expect(chat.messages.map((m: { role: string }) => m.role)).toEqual(['user', 'assistant', 'system', 'user']);
      expect(chat.messages[2].content).toEqual([{ type: 'text', text: 'now be brief' }]);
      expect(chat.reasoning_effort).toBe('high');
      expect(chat).not.toHaveProperty('thinking');
      expect(chat).not.toHaveProperty('context_management');
      expect(chat).not.toHaveProperty('output_config');
    });

    it('a role with no chat equivalent is refused for a chat target, naming it', async () => {
      const res = await post('/v1/messages', viaCompatible(), { ...body, messages: [{ role: 'narrator', content: 'x' }] });
      expect(res.status).toBe(400);
      expect((await errorOf(res)).param).toBe('messages[0].role');
      expect(openai.requests).toHaveLength(0);
    });
  });

  describe('Responses', () => {
    const body = {
      model: 'gpt-x',
      input: [
        {
          type: 'additional_tools',
          role: 'developer',
          tools: [
            { type: 'function', name: 'plain', parameters: { type: 'object' } },
            { type: 'namespace', name: 'ns', tools: [] },
          ],
        },
        { type: 'message', role: 'user', content: [{ type: 'input_text', text: 'hi' }] },
      ],
      tools: [{ type: 'web_search' }, { type: 'custom', name: 'apply', format: { type: 'grammar' } }],
      include: ['reasoning.encrypted_content'],
      store: false,
      reasoning: { effort: 'xhigh', context: 'all_turns' },
      text: { verbosity: 'low' },
      prompt_cache_key: 'k1',
      client_metadata: { a: 'b' },
    };

    it('reach a native Responses target untouched', async () => {
      const res = await post('/v1/responses', viaOpenAI(), body);
      expect(res.status, await res.clone().text()).toBe(200);
      expect(openai.lastRequest!.path).toBe('/v1/responses');
      expect(openai.lastRequest!.body).toMatchObject(body);
    });

    it('run over chat otherwise: function tools kept, other tool kinds and unknown members dropped, effort passed on', async () => {
      const res = await post('/v1/responses', viaCompatible(), body);
      expect(res.status, await res.clone().text()).toBe(200);
      const chat = openai.lastRequest!.body;
      expect(openai.lastRequest!.path).toBe('/v1/chat/completions');
      expect(chat.tools).toEqual([{ type: 'function', function: { name: 'plain', parameters: { type: 'object' } } }]);
      expect(chat.reasoning_effort).toBe('xhigh');
      expect(chat.verbosity).toBe('low');
      expect(chat.prompt_cache_key).toBe('k1');
      for (const k of ['include', 'reasoning', 'store', 'client_metadata', 'text']) expect(chat).not.toHaveProperty(k);
    });

    it('over chat, a value of a member the gateway runs itself is refused by name', async () => {
      for (const [extra, param] of [
        [{ truncation: 'smart' }, 'truncation'],
        [{ tool_choice: 'sometimes' }, 'tool_choice'],
        [{ text: { format: { type: 'yaml' } } }, 'text.format.type'],
        [{ tool_choice: { type: 'web_search' } }, 'tool_choice'],
      ] as const) {
        const res = await post('/v1/responses', viaCompatible(), { ...body, ...extra });
        expect(res.status, param).toBe(400);
        expect((await errorOf(res)).param).toBe(param);
      }
      expect(openai.requests).toHaveLength(0);
    });
  });
});
