import { LRUCache } from 'lru-cache';
import { fetchAgentCard, type CardFetch } from './fetch-agent-card.js';

interface CachedCard {
  card: Record<string, unknown>;
  location: string;
  etag: string;
}

/**
 * Upstream agent cards that came with an `ETag`, per agent server (its id, URL and last update, so an
 * edited server starts afresh) and requested protocol version: the next read sends `If-None-Match`
 * and a 304 reuses the card without reading it again. A card without an `ETag` is read every time.
 */
export class AgentCardCache {
  private readonly cards = new LRUCache<string, CachedCard>({ max: 1000 });

  /** The current card of a server (from the cache when the upstream says it did not change). */
  async read(
    key: { serverId: string; url: string; updatedAt: number; version: string },
    f: Omit<CardFetch, 'cached'>,
  ): Promise<{ card: Record<string, unknown>; revalidated: boolean }> {
    const id = `${key.serverId}|${key.updatedAt}|${key.url}|${key.version}`;
    const cached = this.cards.get(id);
    const fetched = await fetchAgentCard({ ...f, ...(cached ? { cached: { location: cached.location, etag: cached.etag } } : {}) });
    if (fetched.notModified) return { card: cached!.card, revalidated: true };
    if (fetched.etag) this.cards.set(id, { card: fetched.card, location: fetched.location, etag: fetched.etag });
    else this.cards.delete(id);
    return { card: fetched.card, revalidated: false };
  }
}

/** The gateway's card cache (one per process; keys name the agent server, so gateways in one process do not mix). */
export const agentCardCache = new AgentCardCache();
