/** One stored answer: the JSON text of the final answer in the common schema, and when it expires. */
export interface CacheEntry {
  /** JSON text of the answer (a chat completion, a text completion or an embeddings list). */
  body: string;
  /** Model that answered, when known. */
  model?: string;
  /** Epoch ms when the answer was stored. */
  storedAt: number;
  /** Epoch ms from which the entry is no longer served (`storedAt + max_age`). */
  expiresAt: number;
}

/**
 * Where answers live: the in-process LRU (default), Redis or PostgreSQL (both shared by replicas). Implementations
 * honour `expiresAt` exactly on read, whatever their own eviction does, and may throw when their
 * backend is unreachable (the interceptor degrades to MISS). Conformance: test/conformance/cache-store.test.ts.
 */
export interface CacheStore {
  readonly kind: 'memory' | 'redis' | 'postgres';
  /** The entry under `key`, or undefined when absent or expired. */
  get(key: string): Promise<CacheEntry | undefined>;
  /** Stores `entry`; the backend's time to live is `expiresAt - now`. An already-expired entry is not stored. */
  set(key: string, entry: CacheEntry): Promise<void>;
}

/** A stored embedding pointing at the exact key of the answer it was computed for. */
export interface VectorItem {
  key: string;
  /** Unit-length embedding (cosine similarity is then a dot product). */
  vector: Float32Array;
  expiresAt: number;
}

/** A candidate of a semantic search. */
export interface VectorMatch {
  key: string;
  score: number;
}

/**
 * The semantic index: per bucket (workspace, target and everything in the request but the last user
 * message), a bounded list of embeddings. Search is a linear scan of one bucket.
 */
export interface VectorIndex {
  add(bucket: string, item: VectorItem): Promise<void>;
  /** Unexpired items of `bucket` with cosine similarity ≥ `threshold`, best first. */
  search(bucket: string, vector: Float32Array, threshold: number): Promise<VectorMatch[]>;
}

/** A fresh entry is one whose `expiresAt` lies in the future and whose age is below the reader's `max_age`. */
export function isFresh(entry: CacheEntry, now: number, maxAgeMs: number): boolean {
  return now < entry.expiresAt && now - entry.storedAt < maxAgeMs;
}

/** Serialises an entry as one string: a JSON header line, then the answer's JSON text unchanged. */
export function encodeEntry(entry: CacheEntry): string {
  return JSON.stringify({ s: entry.storedAt, e: entry.expiresAt, m: entry.model }) + '\n' + entry.body;
}

/** Parses what `encodeEntry` wrote; undefined for anything else. */
export function decodeEntry(text: string): CacheEntry | undefined {
  const cut = text.indexOf('\n');
  if (cut < 0) return undefined;
  try {
    const head = JSON.parse(text.slice(0, cut)) as { s?: unknown; e?: unknown; m?: unknown };
    if (typeof head.s !== 'number' || typeof head.e !== 'number') return undefined;
    return { body: text.slice(cut + 1), storedAt: head.s, expiresAt: head.e, model: typeof head.m === 'string' ? head.m : undefined };
  } catch {
    return undefined;
  }
}

/** Dot product of two unit vectors = their cosine similarity; 0 when the lengths differ. */
export function cosine(a: Float32Array, b: Float32Array): number {
  if (a.length !== b.length) return 0;
  let dot = 0;
  for (let i = 0; i < a.length; i++) dot += a[i]! * b[i]!;
  return dot;
}

/** Scales a vector to unit length (a zero vector stays zero). */
export function normalise(v: ArrayLike<number>): Float32Array {
  let sum = 0;
  for (let i = 0; i < v.length; i++) sum += v[i]! * v[i]!;
  const norm = Math.sqrt(sum) || 1;
  const out = new Float32Array(v.length);
  for (let i = 0; i < v.length; i++) out[i] = v[i]! / norm;
  return out;
}

/** A vector as little-endian float32 bytes (how the shared backends store it). */
export function vectorToBytes(v: Float32Array): Buffer {
  const bytes = Buffer.alloc(v.length * 4);
  for (let i = 0; i < v.length; i++) bytes.writeFloatLE(v[i]!, i * 4);
  return bytes;
}

/** Reads what `vectorToBytes` wrote; undefined when the length is not a whole number of floats. */
export function vectorFromBytes(bytes: Buffer): Float32Array | undefined {
  if (bytes.length % 4 !== 0) return undefined;
  const v = new Float32Array(bytes.length / 4);
  for (let i = 0; i < v.length; i++) v[i] = bytes.readFloatLE(i * 4);
  return v;
}
