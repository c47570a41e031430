import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { ApiError, FunctionCallingConfigMode, GoogleGenAI } from '@google/genai';
import { startFakeGoogle, type FakeGoogle } from './server.js';
import { googleErrorBody } from './gemini-reply.js';

let fake: FakeGoogle;
let ai: GoogleGenAI;

beforeAll(async () => {
  fake = await startFakeGoogle({ apiKey: 'AIza-fake' });
  ai = new GoogleGenAI({ apiKey: 'AIza-fake', httpOptions: { baseUrl: fake.url } });
});
afterAll(() => fake.close());
beforeEach(() => fake.reset());

describe('Gemini API fake, proven with @google/genai', () => {
  it('answers generateContent with text and usage', async () => {
    const res = await ai.models.generateContent({
      model: 'gemini-2.5-flash',
      contents: 'hello there',
      config: { systemInstruction: 'Be brief.', temperature: 0.1 },
    });
    expect(res.text).toBe('echo: hello there');
    expect(res.candidates?.[0]?.finishReason).toBe('STOP');
    expect(res.usageMetadata?.promptTokenCount).toBeGreaterThan(0);
    expect(res.usageMetadata?.totalTokenCount).toBe(res.usageMetadata!.promptTokenCount! + res.usageMetadata!.candidatesTokenCount!);
    expect(fake.lastRequest?.path).toBe('/v1beta/models/gemini-2.5-flash:generateContent');
    expect(fake.lastRequest?.headers['x-goog-api-key']).toBe('AIza-fake');
    expect(fake.lastRequest?.body.systemInstruction).toEqual({ parts: [{ text: 'Be brief.' }], role: 'user' });
  });

  it('streams SSE frames with thoughts when asked', async () => {
    const stream = await ai.models.generateContentStream({
      model: 'gemini-2.5-flash',
      contents: 'one two three',
      config: { thinkingConfig: { includeThoughts: true, thinkingBudget: 512 } },
    });
    let text = '';
    let thoughts = '';
    let last: Awaited<ReturnType<typeof stream.next>>['value'];
    for await (const chunk of stream) {
      for (const p of chunk.candidates?.[0]?.content?.parts ?? []) {
        if (p.thought) thoughts += p.text ?? '';
        else text += p.text ?? '';
      }
      last = chunk;
    }
    expect(text).toBe('echo: one two three');
    expect(thoughts).toBe('thinking about: one two three');
    expect(last?.candidates?.[0]?.finishReason).toBe('STOP');
    expect(last?.usageMetadata?.thoughtsTokenCount).toBeGreaterThan(0);
    expect(fake.lastRequest?.query.get('alt')).toBe('sse');
  });

  it('answers with a functionCall, then uses the functionResponse', async () => {
    const tools = [
      {
        functionDeclarations: [
          {
            name: 'get_weather',
            description: 'Weather',
            parametersJsonSchema: undefined,
            parameters: { type: 'OBJECT' as never, properties: { query: { type: 'STRING' as never } } },
          },
        ],
      },
    ];
    const first = await ai.models.generateContent({
      model: 'gemini-2.5-flash',
      contents: 'weather in Paris',
      config: { tools, toolConfig: { functionCallingConfig: { mode: FunctionCallingConfigMode.AUTO } } },
    });
    expect(first.functionCalls).toEqual([{ name: 'get_weather', args: { query: 'weather in Paris' } }]);
    const second = await ai.models.generateContent({
      model: 'gemini-2.5-flash',
      contents: [
        { role: 'user', parts: [{ text: 'weather in Paris' }] },
        { role: 'model', parts: [{ functionCall: { name: 'get_weather', args: { query: 'weather in Paris' } } }] },
        { role: 'user', parts: [{ functionResponse: { name: 'get_weather', response: { temp: 21 } } }] },
      ],
      config: { tools },
    });
    expect(second.text).toBe('tool said: {"temp":21}');
  });

  it('embeds one text and a batch', async () => {
    const one = await ai.models.embedContent({ model: 'gemini-embedding-001', contents: 'hello' });
    expect(one.embeddings?.[0]?.values).toHaveLength(8);
    const many = await ai.models.embedContent({ model: 'gemini-embedding-001', contents: ['a', 'b', 'c'] });
    expect(many.embeddings).toHaveLength(3);
    expect(many.embeddings![0]!.values).not.toEqual(many.embeddings![1]!.values);
    expect(fake.lastRequest?.path).toBe('/v1beta/models/gemini-embedding-001:batchEmbedContents');
  });

  it('surfaces Google errors: a wrong key, an injected 429, and a schema key Gemini rejects', async () => {
    const bad = new GoogleGenAI({ apiKey: 'wrong', httpOptions: { baseUrl: fake.url } });
    const e1 = await bad.models.generateContent({ model: 'gemini-2.5-flash', contents: 'x' }).catch((e: unknown) => e);
    expect(e1).toBeInstanceOf(ApiError);
    expect((e1 as ApiError).status).toBe(400);
    expect((e1 as ApiError).message).toContain('API key not valid');

    fake.fail({ status: 429, body: googleErrorBody(429, 'RESOURCE_EXHAUSTED', 'Quota exceeded.') });
    const e2 = await ai.models.generateContent({ model: 'gemini-2.5-flash', contents: 'x' }).catch((e: unknown) => e);
    expect((e2 as ApiError).status).toBe(429);
    expect((e2 as ApiError).message).toContain('RESOURCE_EXHAUSTED');

    // @google/genai drops schema keys it does not model, so the raw body is sent with fetch.
    const raw = await fetch(`${fake.url}/v1beta/models/gemini-2.5-flash:generateContent?key=AIza-fake`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        contents: [{ role: 'user', parts: [{ text: 'x' }] }],
        generationConfig: { responseMimeType: 'application/json', responseSchema: { type: 'object', additionalProperties: false } },
      }),
    });
    expect(raw.status).toBe(400);
    expect(await raw.json()).toMatchObject({
      error: { code: 400, status: 'INVALID_ARGUMENT', message: expect.stringContaining('additionalProperties') },
    });
  });

  it('ends a stream with an error frame when asked', async () => {
    fake.options.streamErrorAfter = 1;
    try {
      const stream = await ai.models.generateContentStream({ model: 'gemini-2.5-flash', contents: 'one two three' });
      const seen: string[] = [];
      const err = await (async () => {
        for await (const c of stream) seen.push(c.text ?? '');
      })().catch((e: unknown) => e);
      expect(seen).toEqual(['echo: ']);
      expect(String(err)).toContain('INTERNAL');
    } finally {
      delete fake.options.streamErrorAfter;
    }
  });
});
