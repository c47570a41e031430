import { describe, expect, it } from 'vitest';
import { after, before } from '../test-support.js';
import { compileSchema, jsonSchema } from './json-schema.js';

const schema = {
  type: 'object',
  required: ['name', 'age'],
  properties: { name: { type: 'string' }, age: { type: 'integer', minimum: 0 }, email: { type: 'string', format: 'email' } },
};

describe('default.jsonSchema', () => {
  it('passes when JSON in the answer matches the schema (whole text, fenced, or embedded)', async () => {
    expect((await jsonSchema.run(after('{"name":"Ada","age":36}'), { schema })).verdict).toBe(true);
    expect((await jsonSchema.run(after('Here:\n```json\n{"name":"Ada","age":36}\n```\nDone.'), { schema })).verdict).toBe(true);
    expect((await jsonSchema.run(after('Result: {"name":"Ada","age":36} as asked.'), { schema })).verdict).toBe(true);
  });

  it('fails on a mismatch, reporting the errors, and when there is no JSON', async () => {
    const r = await jsonSchema.run(after('{"name":"Ada","age":-1,"email":"not-an-email"}'), { schema });
    expect(r.verdict).toBe(false);
    expect(JSON.stringify(r.data)).toMatch(/\/age/);
    expect(JSON.stringify(r.data)).toMatch(/\/email/);
    const none = await jsonSchema.run(before('no json here'), { schema });
    expect(none.verdict).toBe(false);
    expect(none.data).toEqual({ found: false });
  });

  it('compiles each schema once, whatever its key order', () => {
    expect(compileSchema({ type: 'object', required: ['a'] })).toBe(compileSchema({ required: ['a'], type: 'object' }));
  });

  it('keeps schemas that share an $id apart', async () => {
    const a = { $id: 'https://example.com/s', type: 'object', required: ['a'] };
    const b = { $id: 'https://example.com/s', type: 'object', required: ['b'] };
    expect((await jsonSchema.run(after('{"a":1}'), { schema: a })).verdict).toBe(true);
    expect((await jsonSchema.run(after('{"a":1}'), { schema: b })).verdict).toBe(false);
  });

  it('rejects bad parameters', () => {
    expect(() => jsonSchema.validateParams({})).toThrow(/default\.jsonSchema\.schema: is required/);
    expect(() => jsonSchema.validateParams({ schema: [] })).toThrow(/schema: must be an object/);
    expect(() => jsonSchema.validateParams({ schema: { type: 'nonsense' } })).toThrow(/schema: is not a valid JSON Schema/);
  });
});

describe('default.jsonSchema patterns', () => {
  it('matches pattern and patternProperties on RE2, keeping their meaning', async () => {
    const s = {
      type: 'object',
      properties: { id: { type: 'string', pattern: '^[a-z]+-\\d+$' } },
      patternProperties: { '^x-': { type: 'number' } },
    };
    expect((await jsonSchema.run(after('{"id":"ab-12","x-a":1}'), { schema: s })).verdict).toBe(true);
    expect((await jsonSchema.run(after('{"id":"AB-12"}'), { schema: s })).verdict).toBe(false);
    expect((await jsonSchema.run(after('{"id":"ab-12","x-a":"one"}'), { schema: s })).verdict).toBe(false);
  });

  it('answers a catastrophic pattern in linear time', async () => {
    const s = { type: 'object', properties: { v: { type: 'string', pattern: '^(a+)+$' } } };
    await jsonSchema.run(after('{"v":"warm"}'), { schema: s });
    const started = performance.now();
    const r = await jsonSchema.run(after(JSON.stringify({ v: `${'a'.repeat(40)}b` })), { schema: s });
    expect(r.verdict).toBe(false);
    expect(performance.now() - started).toBeLessThan(100);
  });

  it('refuses a schema pattern with a backreference or lookaround', () => {
    expect(() => jsonSchema.validateParams({ schema: { type: 'string', pattern: '(a)\\1' } }, 'p')).toThrow(
      /p\.schema: has a pattern .* backreference/,
    );
    expect(() => jsonSchema.validateParams({ schema: { patternProperties: { '(?=x)': {} } } }, 'p')).toThrow(/lookahead/);
  });
});

describe('default.jsonSchema deep values', () => {
  it('does not echo a matching value nested too deep to serialise', async () => {
    let deep = '1';
    for (let i = 0; i < 100_000; i++) deep = `{"a":${deep}}`;
    const r = await jsonSchema.run(after(deep), { schema: { type: 'object' } });
    expect(r.verdict).toBe(true);
    expect(() => JSON.stringify(r)).not.toThrow();
    expect(r.data).toMatchObject({ found: true, value: null, value_omitted: 'nested more than 32 levels deep' });
    expect((await jsonSchema.run(after('{"a":{"b":1}}'), { schema: { type: 'object' } })).data).toEqual({
      found: true,
      value: { a: { b: 1 } },
    });
  });
});
