import { describe, expect, it } from 'vitest';
import { calcPrice } from '@pydantic/genai-prices';
import { catalogueContextWindow, catalogueModel, catalogueModelsOf } from './catalogue.js';
import { listPrice, priceUsage, unitPricesJson } from './price-usage.js';
import { readTokenUsage } from './token-usage.js';

const AT = Date.UTC(2026, 0, 15);

describe('readTokenUsage', () => {
  it('reads the chat, Responses and Anthropic Messages shapes', () => {
    expect(
      readTokenUsage({
        prompt_tokens: 100,
        completion_tokens: 50,
        total_tokens: 150,
        prompt_tokens_details: { cached_tokens: 40, cache_creation_tokens: 10 },
        completion_tokens_details: { reasoning_tokens: 20 },
      }),
    ).toEqual({ input: 100, output: 50, cacheRead: 40, cacheWrite: 10, reasoning: 20 });
    expect(
      readTokenUsage({
        input_tokens: 100,
        output_tokens: 50,
        input_tokens_details: { cached_tokens: 30 },
        output_tokens_details: { reasoning_tokens: 5 },
      }),
    ).toEqual({ input: 100, output: 50, cacheRead: 30, cacheWrite: 0, reasoning: 5 });
    // Anthropic's input_tokens leave the cache out.
    expect(readTokenUsage({ input_tokens: 10, cache_read_input_tokens: 200, cache_creation_input_tokens: 50, output_tokens: 7 })).toEqual({
      input: 260,
      output: 7,
      cacheRead: 200,
      cacheWrite: 50,
      reasoning: 0,
    });
    expect(readTokenUsage({ prompt_tokens: 3, total_tokens: 3, cost: 0.5 })).toMatchObject({ input: 3, reportedCost: 0.5 });
    expect(readTokenUsage(undefined)).toBeUndefined();
    expect(readTokenUsage({ foo: 1 })).toBeUndefined();
    expect(readTokenUsage({ prompt_tokens: -5, completion_tokens: 'x' })).toEqual({
      input: 0,
      output: 0,
      cacheRead: 0,
      cacheWrite: 0,
      reasoning: 0,
    });
  });
});

describe('priceUsage', () => {
  it('matches the catalogue package for input, cached input and output', () => {
    const usage = {
      prompt_tokens: 12_000,
      completion_tokens: 3_000,
      total_tokens: 15_000,
      prompt_tokens_details: { cached_tokens: 2_000 },
    };
    const p = priceUsage({ provider: 'openai', model: 'gpt-4o', usage, at: AT });
    const expected = calcPrice({ input_tokens: 12_000, cache_read_tokens: 2_000, output_tokens: 3_000 }, 'gpt-4o', {
      providerId: 'openai',
      timestamp: new Date(AT),
    })!;
    expect(p.cost).toBeCloseTo(expected.total_price, 12);
    expect(p.unitPrices).toMatchObject({
      input_mtok: 2.5,
      output_mtok: 10,
      cache_read_mtok: 1.25,
      multiplier: 1,
      source: 'catalogue',
      catalogue_model: 'gpt-4o',
    });
    // Recomputing from the stored unit prices gives the stored cost.
    const u = p.unitPrices!;
    expect(p.cost).toBeCloseTo((10_000 * u.input_mtok! + 2_000 * u.cache_read_mtok! + 3_000 * u.output_mtok!) / 1e6, 12);
  });

  it('prices Anthropic cache writes and reads as the catalogue does', () => {
    const usage = { input_tokens: 100, cache_read_input_tokens: 1_000, cache_creation_input_tokens: 4_000, output_tokens: 250 };
    const p = priceUsage({ provider: 'anthropic', model: 'claude-3-5-haiku-20241022', usage, at: AT });
    const expected = calcPrice(
      { input_tokens: 5_100, cache_read_tokens: 1_000, cache_write_tokens: 4_000, output_tokens: 250 },
      'claude-3-5-haiku-20241022',
      { providerId: 'anthropic', timestamp: new Date(AT) },
    )!;
    expect(p.cost).toBeGreaterThan(0);
    expect(p.cost).toBeCloseTo(expected.total_price, 12);
    expect(p.unitPrices).toMatchObject({ cache_write_mtok: 1, cache_read_mtok: 0.08 });
  });

  it('prices reasoning tokens at their own price where the catalogue has one', () => {
    const usage = {
      prompt_tokens: 1_000,
      completion_tokens: 500,
      total_tokens: 1_500,
      completion_tokens_details: { reasoning_tokens: 300 },
    };
    const p = priceUsage({ provider: 'openrouter', model: 'perplexity/sonar-deep-research', usage, at: AT });
    const expected = calcPrice(
      { input_tokens: 1_000, output_tokens: 500, output_reasoning_tokens: 300 },
      'perplexity/sonar-deep-research',
      { providerId: 'openrouter', timestamp: new Date(AT) },
    )!;
    expect(p.cost).toBeCloseTo(expected.total_price, 12);
    expect(p.unitPrices?.output_reasoning_mtok).toBeGreaterThan(0);
  });

  it('applies the multiplier, a pricing_config override and a custom model priced as its base model', () => {
    const usage = { prompt_tokens: 1_000_000, completion_tokens: 1_000_000, total_tokens: 2_000_000 };
    expect(priceUsage({ provider: 'openai', model: 'gpt-4o', usage, at: AT, terms: { multiplier: 1.5 } }).cost).toBeCloseTo(
      (2.5 + 10) * 1.5,
      9,
    );
    const models = new Map([
      ['gpt-4o', { override: { output_mtok: 20 } }],
      ['my-tuned', { baseModel: 'gpt-4o-mini' }],
      ['house-model', { override: { input_mtok: 1, output_mtok: 2 } }],
    ]);
    const over = priceUsage({ provider: 'openai', model: 'gpt-4o', usage, at: AT, terms: { multiplier: 2, models } });
    expect(over.cost).toBeCloseTo((2.5 + 20) * 2, 9);
    expect(over.unitPrices).toMatchObject({ input_mtok: 2.5, output_mtok: 20, multiplier: 2, source: 'pricing_config' });
    const mini = priceUsage({ provider: 'openai', model: 'gpt-4o-mini', usage, at: AT });
    expect(priceUsage({ provider: 'openai', model: 'my-tuned', usage, at: AT, terms: { models } }).cost).toBeCloseTo(mini.cost, 12);
    const house = priceUsage({ provider: 'vllm', model: 'house-model', usage, at: AT, terms: { models } });
    expect(house.cost).toBeCloseTo(3, 9);
    expect(house.unitPrices).toEqual({ input_mtok: 1, output_mtok: 2, multiplier: 1, source: 'pricing_config' });
  });

  it('a model the catalogue does not price costs what the provider reports, else nothing', () => {
    expect(
      priceUsage({ provider: 'ollama', model: 'llama3', usage: { prompt_tokens: 10, completion_tokens: 5, total_tokens: 15 }, at: AT }),
    ).toMatchObject({ cost: 0, unitPrices: null });
    const reported = priceUsage({
      provider: 'openrouter',
      model: 'no-such/model',
      usage: { prompt_tokens: 10, completion_tokens: 5, total_tokens: 15, cost: 0.002 },
      at: AT,
      terms: { multiplier: 2 },
    });
    expect(reported).toMatchObject({ cost: 0.004, unitPrices: { source: 'provider', multiplier: 2 } });
    expect(priceUsage({ provider: 'openai', model: 'gpt-4o', usage: undefined, at: AT })).toMatchObject({ cost: 0, unitPrices: null });
  });

  it('prefers the answered model and falls back to the requested one', () => {
    const usage = { prompt_tokens: 1_000_000, completion_tokens: 0, total_tokens: 1_000_000 };
    expect(
      priceUsage({ provider: 'openai', model: 'gpt-4o', answeredModel: 'gpt-4o-mini-2024-07-18', usage, at: AT }).unitPrices
        ?.catalogue_model,
    ).toBe('gpt-4o-mini');
    expect(
      priceUsage({ provider: 'openai', model: 'gpt-4o', answeredModel: 'unknown-deployment', usage, at: AT }).unitPrices?.catalogue_model,
    ).toBe('gpt-4o');
  });
});

describe('unitPricesJson', () => {
  it('writes what JSON.stringify writes, once for the shared prices of a fixed-price model', () => {
    const usage = { prompt_tokens: 10, completion_tokens: 5, total_tokens: 15 };
    const a = priceUsage({ provider: 'openai', model: 'gpt-4o-mini', usage, at: AT }).unitPrices!;
    const b = priceUsage({ provider: 'openai', model: 'gpt-4o-mini', usage: { ...usage, prompt_tokens: 99 }, at: AT }).unitPrices!;
    // A fixed-price model's unit prices are one frozen object; their text is remembered.
    expect(Object.isFrozen(a)).toBe(true);
    expect(b).toBe(a);
    expect(unitPricesJson(a)).toBe(JSON.stringify(a));
    expect(JSON.parse(unitPricesJson(b))).toEqual(JSON.parse(JSON.stringify(b)));
    // Unit prices built for one request (an override here) are written each time, as they are.
    const own = { input_mtok: 0.1, output_mtok: 0.3, multiplier: 2, source: 'pricing_config' as const };
    expect(unitPricesJson(own)).toBe(JSON.stringify(own));
    own.input_mtok = 0.2;
    expect(unitPricesJson(own)).toBe(JSON.stringify(own));
  });
});

describe('catalogue', () => {
  it('memoises lookups by provider and model, maps gateway names and knows context windows', () => {
    expect(catalogueModel('openai', 'gpt-4o')).toBe(catalogueModel('openai', 'gpt-4o'));
    expect(catalogueModel('bedrock', 'anthropic.claude-3-5-sonnet-20240620-v1:0')?.providerId).toBe('aws');
    expect(catalogueModel('fireworks-ai', 'accounts/fireworks/models/deepseek-v3p2')?.providerId).toBe('fireworks');
    expect(catalogueModel('perplexity-ai', 'sonar')?.providerId).toBe('perplexity');
    expect(catalogueModel('ollama', 'llama3')).toBeUndefined();
    expect(catalogueContextWindow('gpt-4o')).toBe(128_000);
    expect(catalogueModelsOf('openai').some((m) => m.id === 'gpt-4o')).toBe(true);
    expect(catalogueModelsOf('ollama')).toEqual([]);
  });
});

describe('listPrice', () => {
  it('is the model price now, with the integration override and multiplier', () => {
    expect(listPrice('openai', 'gpt-4o', undefined, AT)).toMatchObject({
      input_mtok: 2.5,
      output_mtok: 10,
      multiplier: 1,
      source: 'catalogue',
    });
    const terms = { multiplier: 1.2, models: new Map([['gpt-4o', { override: { input_mtok: 3 } }]]) };
    expect(listPrice('openai', 'gpt-4o', terms, AT)).toMatchObject({
      input_mtok: 3,
      output_mtok: 10,
      multiplier: 1.2,
      source: 'pricing_config',
    });
    expect(listPrice('ollama', 'llama3', undefined, AT)).toBeUndefined();
  });
});
