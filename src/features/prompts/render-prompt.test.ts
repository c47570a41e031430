import { describe, expect, it } from 'vitest';
import type { PromptVersion, StoredPrompt } from './prompts-repo.js';
import { PromptCatalog, type LookupScope } from './prompt-catalog.js';
import { PromptRenderer, withCompletionTokens } from './render-prompt.js';

const v = (version: number, template: string, extra: Partial<PromptVersion> = {}): PromptVersion => ({
  version,
  template,
  parameters: {},
  model: null,
  metadata: {},
  description: null,
  created_at: 1,
  ...extra,
});
const entry = (
  id: string,
  kind: StoredPrompt['kind'],
  ws: string,
  versions: PromptVersion[],
  published = 1,
): StoredPrompt & { versions: PromptVersion[] } => ({
  id,
  organisation_id: 'org',
  workspace_id: ws,
  kind,
  name: id,
  slug: `${id}-slug`,
  published_version: published,
  latest_version: versions.length,
  virtual_key: null,
  provider: '@p',
  created_at: 1,
  updated_at: 1,
  versions,
});
const wsA: LookupScope = { workspaceId: 'A', organisationId: 'org', anyWorkspace: false };

describe('PromptRenderer', () => {
  it('orders the rendered object as messages, model, saved parameters, then overrides', () => {
    const catalog = new PromptCatalog([
      entry('p', 'prompt', 'A', [v(1, 'Hi {{n}}', { model: 'm1', parameters: { temperature: 0.1, top_p: 0.5, max_tokens: 10 } })]),
    ]);
    const r = new PromptRenderer(() => catalog).render('p', { n: 'x' }, { temperature: 0.9, model: 'm2' }, wsA);
    expect(r.body).toEqual({
      messages: [{ role: 'user', content: 'Hi x' }],
      model: 'm2',
      temperature: 0.9,
      top_p: 0.5,
      max_completion_tokens: 10,
    });
    expect(Object.keys(r.body)).toEqual(['messages', 'model', 'temperature', 'top_p', 'max_completion_tokens']);
    expect(r).toMatchObject({ promptId: 'p', workspaceId: 'A', version: 1, credential: { virtualKey: null, provider: '@p' } });
  });

  it('reuses a compiled version until a partial it includes resolves to another version', () => {
    const prompt = entry('p', 'prompt', 'A', [v(1, '{{> part-slug}}')]);
    let catalog = new PromptCatalog([prompt, entry('part', 'partial', 'A', [v(1, 'one'), v(2, 'two')])]);
    const renderer = new PromptRenderer(() => catalog);
    expect(renderer.render('p', {}, {}, wsA).body.messages).toEqual([{ role: 'user', content: 'one' }]);
    catalog = new PromptCatalog([prompt, entry('part', 'partial', 'A', [v(1, 'one'), v(2, 'two')], 2)]);
    expect(renderer.render('p', {}, {}, wsA).body.messages).toEqual([{ role: 'user', content: 'two' }]);
  });

  it('finds prompts in the request workspace; organisation keys also by id in any workspace of their organisation', () => {
    const catalog = new PromptCatalog([entry('p', 'prompt', 'B', [v(1, 'b')])]);
    const renderer = new PromptRenderer(() => catalog);
    expect(() => renderer.render('p', {}, {}, wsA)).toThrow(expect.objectContaining({ status: 404 }));
    expect(renderer.render('p', {}, {}, { ...wsA, anyWorkspace: true }).workspaceId).toBe('B');
    expect(() => renderer.render('p-slug', {}, {}, { ...wsA, anyWorkspace: true })).toThrow(expect.objectContaining({ status: 404 }));
    expect(() => renderer.render('p', {}, {}, { workspaceId: 'A', organisationId: 'other', anyWorkspace: true })).toThrow(
      expect.objectContaining({ status: 404 }),
    );
  });

  it('does not find partials of another workspace', () => {
    const catalog = new PromptCatalog([entry('p', 'prompt', 'A', [v(1, '{{> part-slug}}')]), entry('part', 'partial', 'B', [v(1, 'x')])]);
    expect(() => new PromptRenderer(() => catalog).render('p', {}, {}, wsA)).toThrow(
      expect.objectContaining({ status: 400, message: expect.stringContaining("partial 'part-slug'") }),
    );
  });
});

describe('withCompletionTokens', () => {
  it('moves max_tokens to max_completion_tokens unless that is set', () => {
    expect(withCompletionTokens({ max_tokens: 5, a: 1 })).toEqual({ a: 1, max_completion_tokens: 5 });
    expect(withCompletionTokens({ max_tokens: 5, max_completion_tokens: 7 })).toEqual({ max_completion_tokens: 7 });
    const same = { temperature: 1 };
    expect(withCompletionTokens(same)).toBe(same);
  });
});
