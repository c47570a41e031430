/**
 * A map keyed by a short, fixed-length tuple of strings (two to four), kept as nested maps: a lookup
 * builds no key string (joining the parts would allocate, flatten and hash a new string per lookup)
 * and two tuples can never be confused, whatever characters their parts hold. Every key of one tree
 * has the same number of parts.
 */
export class StringTree<V> {
  private readonly root = new Map<string, Map<string, unknown>>();
  /** How many values are stored. */
  size = 0;

  get(a: string, b: string, c?: string, d?: string): V | undefined {
    const level2 = this.root.get(a);
    if (level2 === undefined) return undefined;
    if (c === undefined) return level2.get(b) as V | undefined;
    const level3 = level2.get(b) as Map<string, unknown> | undefined;
    if (level3 === undefined) return undefined;
    if (d === undefined) return level3.get(c) as V | undefined;
    const level4 = level3.get(c) as Map<string, unknown> | undefined;
    return level4 === undefined ? undefined : (level4.get(d) as V | undefined);
  }

  set(value: V, a: string, b: string, c?: string, d?: string): void {
    const parts = c === undefined ? [b] : d === undefined ? [b, c] : [b, c, d];
    let node = this.root.get(a);
    if (node === undefined) this.root.set(a, (node = new Map()));
    for (let i = 0; i < parts.length - 1; i++) {
      let next = node.get(parts[i]!) as Map<string, unknown> | undefined;
      if (next === undefined) node.set(parts[i]!, (next = new Map()));
      node = next;
    }
    const last = parts[parts.length - 1]!;
    if (!node.has(last)) this.size++;
    node.set(last, value);
  }
}
