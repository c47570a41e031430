import { describe, expect, it } from 'vitest';
import type { PromptVersion, StoredPrompt } from './prompts-repo.js';
import { PromptCatalog, type LookupScope } from './prompt-catalog.js';

const v = (version: number, template: string): PromptVersion => ({
  version,
  template,
  parameters: {},
  model: null,
  metadata: {},
  description: null,
  created_at: 1,
});
const entry = (id: string, ws: string, versions: PromptVersion[]): StoredPrompt & { versions: PromptVersion[] } => ({
  id,
  organisation_id: 'org',
  workspace_id: ws,
  kind: 'prompt',
  name: id,
  slug: `${id}-slug`,
  published_version: 1,
  latest_version: versions.length,
  virtual_key: null,
  provider: null,
  created_at: 1,
  updated_at: 1,
  versions,
});
const scope = (workspaceId: string): LookupScope => ({ workspaceId, organisationId: 'org', anyWorkspace: false });

describe('PromptCatalog.withWorkspaces', () => {
  it('replaces the entries of the changed workspaces only, leaving the previous catalog as it was', () => {
    const before = new PromptCatalog([
      entry('a1', 'A', [v(1, 'a one')]),
      entry('a2', 'A', [v(1, 'gone soon')]),
      entry('b1', 'B', [v(1, 'b one'), v(2, 'b two')]),
    ]);
    const after = before.withWorkspaces(['A'], [entry('a1', 'A', [v(1, 'a one'), v(2, 'a two')]), entry('a3', 'A', [v(1, 'new')])]);

    expect(after.resolve('prompt', { ref: 'a1', version: 'latest' }, scope('A'))?.version.template).toBe('a two');
    expect(after.find('prompt', 'a2', scope('A'))).toBeUndefined();
    expect(after.find('prompt', 'a3-slug', scope('A'))?.id).toBe('a3');
    expect(after.resolve('prompt', { ref: 'b1', version: 2 }, scope('B'))?.version.template).toBe('b two');

    expect(before.resolve('prompt', { ref: 'a1', version: 'latest' }, scope('A'))?.version.template).toBe('a one');
    expect(before.find('prompt', 'a2', scope('A'))?.id).toBe('a2');
  });
});
