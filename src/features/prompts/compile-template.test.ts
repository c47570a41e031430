import { describe, expect, it } from 'vitest';
import { GatewayError } from '../../foundation/errors/gateway-error.js';
import { compileTemplate, missingVariables, templateMessages, type ResolvedPartial } from './compile-template.js';

const noPartials = () => undefined;
const partials =
  (map: Record<string, string>) =>
  (name: string): ResolvedPartial | undefined =>
    map[name] === undefined ? undefined : { key: `${name}@1`, text: map[name]! };

function errorOf(fn: () => unknown): GatewayError {
  try {
    fn();
  } catch (err) {
    return err as GatewayError;
  }
  throw new Error('expected an error');
}

describe('templateMessages', () => {
  it('reads a JSON array of chat messages, and anything else as one user message', () => {
    expect(templateMessages('[{"role":"system","content":"Be {{tone}}"},{"role":"user","content":"hi"}]')).toEqual([
      { role: 'system', content: 'Be {{tone}}' },
      { role: 'user', content: 'hi' },
    ]);
    expect(templateMessages('Hello {{name}}')).toEqual([{ role: 'user', content: 'Hello {{name}}' }]);
    expect(templateMessages('[INST] {{q}} [/INST]')).toEqual([{ role: 'user', content: '[INST] {{q}} [/INST]' }]);
  });

  it('rejects a JSON array that is not chat messages, and malformed Mustache, naming where', () => {
    expect(errorOf(() => templateMessages('[{"role":"robot","content":"x"}]')).param).toBe('string[0].role');
    expect(errorOf(() => templateMessages('[1,2]')).message).toContain('string[0] must be a chat message object');
    expect(errorOf(() => templateMessages('[]')).status).toBe(400);
    const e = errorOf(() => templateMessages('[{"role":"user","content":"{{#a}}open"}]'));
    expect(e.param).toBe('string[0].content');
    expect(e.message).toMatch(/Unclosed section "a"/);
  });

  it('refuses messages nested more than 1,000 levels deep with a 400, not a stack overflow', () => {
    // The array and the message are two levels; the array in `x` makes the rest.
    const nested = (levels: number) => `[{"role":"user","content":"hi","x":${'['.repeat(levels - 2)}${']'.repeat(levels - 2)}}]`;
    for (const levels of [1001, 100_000]) {
      const e = errorOf(() => templateMessages(nested(levels)));
      expect([e.status, e.param, e.message]).toEqual([400, 'string', 'string is nested more than 1000 levels deep.']);
    }
    expect(templateMessages(nested(1000))[0]).toMatchObject({ role: 'user', content: 'hi' });
  });
});

describe('compileTemplate', () => {
  it('substitutes variables without HTML escaping; objects render as JSON', () => {
    const t = compileTemplate('Dear {{name}}, {{{raw}}} {{data}} {{n}}', noPartials);
    expect(t.render({ name: 'Tom & "Jerry" <x>', raw: 'a&b', data: { k: [1] }, n: 3 })).toEqual([
      { role: 'user', content: 'Dear Tom & "Jerry" <x>, a&b {"k":[1]} 3' },
    ]);
  });

  it('renders sections over lists, inverted sections, and every string of a message (not the role)', () => {
    const t = compileTemplate(
      JSON.stringify([
        { role: 'system', content: '{{#rules}}- {{.}}\n{{/rules}}{{^rules}}No rules.{{/rules}}' },
        {
          role: 'user',
          content: [
            { type: 'text', text: 'Look at {{what}}' },
            { type: 'image_url', image_url: { url: '{{img}}' } },
          ],
        },
      ]),
      noPartials,
    );
    expect([...t.required].sort()).toEqual(['img', 'what']);
    const out = t.render({ rules: ['be brief', 'be kind'], what: 'this', img: 'https://x/y.png' });
    expect(out[0]).toEqual({ role: 'system', content: '- be brief\n- be kind\n' });
    expect(out[1]).toEqual({
      role: 'user',
      content: [
        { type: 'text', text: 'Look at this' },
        { type: 'image_url', image_url: { url: 'https://x/y.png' } },
      ],
    });
    expect(t.render({ rules: [], what: 'a', img: 'b' })[0]!.content).toBe('No rules.');
  });

  it('requires names outside sections only (dotted names need every step), partials included', () => {
    const t = compileTemplate(
      '{{user.name}} {{#items}}{{title}}{{/items}} {{^flag}}{{other}}{{/flag}} {{> footer}}',
      partials({ footer: 'Signed {{signer}}' }),
    );
    expect([...t.required].sort()).toEqual(['signer', 'user.name']);
    expect(t.partials.get('footer')).toBe('footer@1');
    expect(missingVariables(t.required, { user: { name: 'a' }, signer: 'b' })).toEqual([]);
    expect(missingVariables(t.required, { user: {}, signer: null })).toEqual(['user.name']);
    expect(missingVariables(t.required, { user: 'x' })).toEqual(['user.name', 'signer']);
    expect(missingVariables(['constructor'], {})).toEqual(['constructor']);
    expect(t.render({ user: { name: 'Ann' }, signer: 'Bob', items: [{ title: 'T1' }] })[0]!.content).toBe('Ann T1  Signed Bob');
  });

  it('includes partials transitively; unknown partials and self-inclusion outside a section are 400', () => {
    const t = compileTemplate('{{> a}}!', partials({ a: 'A({{> b}})', b: 'B={{x}}' }));
    expect(t.required).toEqual(['x']);
    expect(t.render({ x: 1 })[0]!.content).toBe('A(B=1)!');
    expect(errorOf(() => compileTemplate('{{> nope}}', noPartials)).message).toContain("partial 'nope', which does not exist");
    expect(errorOf(() => compileTemplate('{{> loop}}', partials({ loop: 'x {{> loop}}' }))).message).toContain('includes itself');
    const tree = compileTemplate('{{> node}}', partials({ node: '{{name}}[{{#kids}}{{> node}}{{/kids}}]' }));
    expect(
      tree.render({
        name: 'r',
        kids: [
          { name: 'a', kids: [] },
          { name: 'b', kids: [] },
        ],
      })[0]!.content,
    ).toBe('r[a[]b[]]');
    // Without its own `kids`, 'b' finds its parent's (Mustache looks names up the context stack): endless.
    expect(errorOf(() => tree.render({ name: 'r', kids: [{ name: 'b' }] }))).toMatchObject({
      status: 400,
      message: expect.stringContaining('recursed too deeply'),
    });
  });
});
