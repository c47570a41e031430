import { describe, expect, it } from 'vitest';
import { ChatCompletionBody } from '../../foundation/spec/chat-completion-body.js';
import { CompletionBody } from './completions/completions.js';
import { EmbeddingsBody } from './embeddings/embeddings.js';
import { ImageGenerationBody } from './images/images-generations.js';
import { ModerationBody } from './moderations/moderations.js';

/** Paths of every `default` keyword in a JSON schema. */
function defaultsIn(schema: unknown, path = '$'): string[] {
  if (Array.isArray(schema)) return schema.flatMap((s, i) => defaultsIn(s, `${path}[${i}]`));
  if (schema === null || typeof schema !== 'object') return [];
  return Object.entries(schema).flatMap(([k, v]) => (k === 'default' ? [path] : defaultsIn(v, `${path}.${k}`)));
}

// Routes passing FORWARDS_TEXT send the client's own text upstream when nothing replaced the body. Ajv
// fills `default`s into the parsed body in place, which that text would not carry: their schemas have none.
describe('body schemas of routes that forward the client text', () => {
  it.each([
    ['chat', ChatCompletionBody],
    ['completions', CompletionBody],
    ['embeddings', EmbeddingsBody],
    ['images', ImageGenerationBody],
  ])('%s sets no default', (_name, schema) => {
    expect(defaultsIn(schema)).toEqual([]);
  });

  it('finds a default where there is one (moderations, which does not forward its text)', () => {
    expect(defaultsIn(ModerationBody)).toEqual(['$.properties.model']);
  });
});
