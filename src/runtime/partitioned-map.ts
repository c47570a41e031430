/** Entries copied between two yields to the event loop while a map is rebuilt aside. */
const COPY_SLICE = 2048;

/** Lets timers and I/O (data-plane requests) run before the rest of a long reload. */
export function yieldToEventLoop(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve));
}

/**
 * A flat map the hot path reads with one `get` (`all`), plus the keys each partition (a workspace)
 * contributed, so that one partition can be replaced without reloading the others. Never mutated once
 * built: a reload builds a new one aside and the runtime swaps it in.
 */
export interface PartitionedMap<V> {
  readonly all: ReadonlyMap<string, V>;
  readonly keysByPartition: ReadonlyMap<string, readonly string[]>;
}

/** Collects entries into a new PartitionedMap. */
export class PartitionedMapBuilder<V> {
  private readonly all = new Map<string, V>();
  private readonly keys = new Map<string, string[]>();

  /** Adds `key → value`, contributed by `partition`. */
  add(partition: string, key: string, value: V): void {
    this.all.set(key, value);
    const list = this.keys.get(partition);
    if (list) list.push(key);
    else this.keys.set(partition, [key]);
  }

  build(): PartitionedMap<V> {
    return { all: this.all, keysByPartition: this.keys };
  }
}

/**
 * A new map equal to `previous` with `partitions` replaced by `fresh`'s entries (a partition absent
 * from `fresh` ends up empty). `previous` is left untouched; the copy yields to the event loop every
 * few thousand entries so a large section never blocks requests for long.
 */
export async function replacePartitions<V>(
  previous: PartitionedMap<V>,
  partitions: readonly string[],
  fresh: PartitionedMap<V>,
): Promise<PartitionedMap<V>> {
  const dropped = new Set<string>();
  for (const p of partitions) for (const k of previous.keysByPartition.get(p) ?? []) dropped.add(k);
  const all = new Map<string, V>();
  let n = 0;
  for (const [k, v] of previous.all) {
    if (!dropped.has(k)) all.set(k, v);
    if (++n % COPY_SLICE === 0) await yieldToEventLoop();
  }
  for (const [k, v] of fresh.all) all.set(k, v);
  const keys = new Map(previous.keysByPartition);
  for (const p of partitions) keys.delete(p);
  for (const [p, list] of fresh.keysByPartition) keys.set(p, list);
  return { all, keysByPartition: keys };
}
