import { describe, expect, it } from 'vitest';
import { diffProfiles, summarizeProfile } from '../../bench/lib/profile-summary.mjs';

/** A profile whose samples land on the named functions for the given microseconds each. */
function profile(self: Record<string, number>) {
  const names = Object.keys(self);
  const nodes = names.map((name, i) => ({
    id: i + 1,
    callFrame: { functionName: name, url: name.startsWith('(') ? '' : `file:///app/${name}.js`, lineNumber: 0 },
  }));
  return { nodes, samples: nodes.map((n) => n.id), timeDeltas: names.map((n) => self[n]!) };
}

describe('profile summary', () => {
  it('sums self time per function and file', () => {
    const s = summarizeProfile(profile({ parse: 300, write: 100, '(idle)': 600 }));
    expect(s.totalMs).toBeCloseTo(1);
    expect(s.functions[0]).toMatchObject({ name: '(idle) (native)', ms: 0.6 });
    expect(s.functions.find((f) => f.name.startsWith('parse'))?.ms).toBeCloseTo(0.3);
  });

  it('compares two profiles per request, idle left out, largest increase first', () => {
    const bare = profile({ parse: 2000, write: 4000, '(idle)': 9000 });
    const production = profile({ parse: 1000, write: 3000, insert: 1500, '(idle)': 100 });
    const d = diffProfiles(bare, 200, production, 100);
    expect(d.totalA).toBeCloseTo(30);
    expect(d.totalB).toBeCloseTo(55);
    expect(d.rows.map((r) => [r.name.split(' ')[0], r.a, r.b])).toEqual([
      ['insert', 0, 15],
      ['write', 20, 30],
      ['parse', 10, 10],
    ]);
  });
});
