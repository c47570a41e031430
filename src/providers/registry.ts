import type { TSchema } from 'typebox';
import type { ProviderSettings } from './provider-settings.js';
import type { ProviderAdapter } from './provider.js';
import { createOpenAICompatibleProvider } from './openai-compatible/create-openai-compatible-provider.js';
import type { OpenAICompatibleSpec } from './openai-compatible/openai-compatible-spec.js';
import { openaiProvider } from './openai/openai-provider.js';
import { anthropicProvider } from './anthropic/anthropic-provider.js';
import { googleProvider } from './google/google-provider.js';
import { vertexAiProvider } from './vertex-ai/vertex-ai-provider.js';
import { bedrockProvider } from './bedrock/bedrock-provider.js';
import { azureOpenAIProvider } from './azure-openai/azure-openai-provider.js';
import { azureAIProvider } from './azure-ai/azure-ai-provider.js';
import { cohereProvider } from './cohere/cohere-provider.js';
import { voyageProvider } from './voyage/voyage-provider.js';

/**
 * OpenAI-compatible hosts: one row each, default base URL overridable by `custom_host`.
 * Docs: groq.com, together.ai, mistral.ai, deepseek.com, fireworks.ai, openrouter.ai, x.ai,
 * perplexity.ai, ollama.com, vllm.ai, lmstudio.ai (each host's OpenAI compatibility page), jina.ai (embeddings, rerank).
 * `rerank: true` marks hosts serving `POST /rerank` in the vLLM / Jina format.
 */
const OPENAI_COMPATIBLE_HOSTS: OpenAICompatibleSpec[] = [
  { name: 'groq', baseUrl: 'https://api.groq.com/openai/v1', without: ['completions'] },
  { name: 'together-ai', baseUrl: 'https://api.together.xyz/v1', rerank: true },
  { name: 'mistral-ai', baseUrl: 'https://api.mistral.ai/v1', without: ['completions'] },
  { name: 'deepseek', baseUrl: 'https://api.deepseek.com/v1', without: ['embeddings'] },
  { name: 'fireworks-ai', baseUrl: 'https://api.fireworks.ai/inference/v1' },
  { name: 'openrouter', baseUrl: 'https://openrouter.ai/api/v1', without: ['embeddings'] },
  { name: 'x-ai', baseUrl: 'https://api.x.ai/v1' },
  { name: 'perplexity-ai', baseUrl: 'https://api.perplexity.ai', without: ['completions', 'embeddings'] },
  { name: 'ollama', baseUrl: 'http://localhost:11434/v1', keyOptional: true },
  { name: 'vllm', baseUrl: 'http://localhost:8000/v1', keyOptional: true, rerank: true },
  { name: 'lm-studio', baseUrl: 'http://localhost:1234/v1', keyOptional: true },
  { name: 'jina', baseUrl: 'https://api.jina.ai/v1', without: ['chat', 'completions', 'images', 'moderations'], rerank: true },
];

/** Every provider the gateway knows, by registry name. The only place that names them all. */
const PROVIDERS: ReadonlyMap<string, ProviderAdapter> = new Map<string, ProviderAdapter>([
  [openaiProvider.name, openaiProvider],
  [bedrockProvider.name, bedrockProvider],
  [anthropicProvider.name, anthropicProvider],
  [googleProvider.name, googleProvider],
  [vertexAiProvider.name, vertexAiProvider],
  [azureOpenAIProvider.name, azureOpenAIProvider],
  [azureAIProvider.name, azureAIProvider],
  [cohereProvider.name, cohereProvider],
  [voyageProvider.name, voyageProvider],
  ...OPENAI_COMPATIBLE_HOSTS.map((spec): [string, ProviderAdapter] => [spec.name, createOpenAICompatibleProvider(spec)]),
]);

/** Looks a provider up by name; `@slug` names are resolved by the caller before this. */
export function getProvider(name: string): ProviderAdapter | undefined {
  return PROVIDERS.get(name.toLowerCase());
}

/** The origins of every provider's fixed default URLs (see `ProviderAdapter.fixedOrigins`). */
export function fixedProviderOrigins(): string[] {
  return [...new Set([...PROVIDERS.values()].flatMap((p) => p.fixedOrigins ?? []))];
}

/**
 * Every provider's settings merged: the provider-specific keys a config object may hold. Two providers
 * declaring one key (`cloud3_resource_name`) must declare the same schema; the first declaration is kept.
 */
export function allProviderSettings(): Record<string, TSchema> {
  const merged: Record<string, TSchema> = {};
  for (const p of PROVIDERS.values()) {
    for (const [key, schema] of Object.entries(p.settings ?? {})) {
      const prior = merged[key];
      if (prior && JSON.stringify(prior) !== JSON.stringify(schema))
        throw new Error(`Providers declare setting '${key}' with different schemas (${p.name}).`);
      merged[key] ??= schema;
    }
  }
  return merged;
}

/** One provider's own settings (none when it reads no config key of its own); undefined for an unknown provider. */
export function providerSettings(name: string): ProviderSettings | undefined {
  const p = getProvider(name);
  return p ? (p.settings ?? {}) : undefined;
}

/** Names of every registered provider, sorted. */
export function providerNames(): string[] {
  return [...PROVIDERS.keys()].sort();
}
