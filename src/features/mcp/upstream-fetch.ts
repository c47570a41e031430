import { Agent, fetch as undiciFetch } from 'undici';
import type { FetchLike } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { OutboundPolicy } from '../../foundation/lib/outbound-policy.js';
import { CustomHostGuard } from '../../routing/custom-host-guard.js';

/**
 * The fetch the MCP client transports use upstream: every URL passes the custom-host guard (the early,
 * cached answer) and every connection goes through the outbound policy's connector (what is actually
 * connected to), so an MCP integration's URL is judged at save and again at connect. Redirects are not
 * followed (the SDK transports stay within the origin themselves).
 */
export class UpstreamFetch {
  private readonly guard: CustomHostGuard;
  private readonly agent: Agent;

  /**
   * `headersTimeoutMs` bounds the wait for an upstream's status and headers (an upstream that accepts
   * the connection and never answers); a stream's body, once its headers came, may stay quiet longer.
   */
  constructor(policy: OutboundPolicy, connectTimeoutMs = 10_000, headersTimeoutMs = 600_000) {
    this.guard = new CustomHostGuard(policy);
    this.agent = new Agent({
      connect: policy.connector({ timeout: connectTimeoutMs }),
      keepAliveTimeout: 30_000,
      headersTimeout: headersTimeoutMs,
    });
  }

  /**
   * A fetch for one exchange; `onBodyEnd` is called when an event-stream answer has been read to its
   * end, so a caller waiting for a JSON-RPC answer on an SSE stream that closed without one does not
   * wait forever (a JSON answer is read whole by the transport itself).
   */
  fetchFor(onBodyEnd?: () => void): FetchLike {
    return async (url, init) => {
      await this.guard.check(String(url));
      const res = (await undiciFetch(url, { ...(init as object), dispatcher: this.agent, redirect: 'manual' })) as unknown as Response;
      if (!onBodyEnd || !res.body || !(res.headers.get('content-type') ?? '').includes('text/event-stream')) return res;
      const watched = res.body.pipeThrough(
        new TransformStream<Uint8Array, Uint8Array>({
          flush: () => onBodyEnd(),
        }),
      );
      return new Response(watched, { status: res.status, statusText: res.statusText, headers: res.headers });
    };
  }

  /** Closes the upstream connection pool. */
  async close(): Promise<void> {
    await this.agent.close();
  }
}
