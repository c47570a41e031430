import { JSONRPCMessageSchema, type JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import { SseDecoder } from '../../foundation/lib/sse.js';
import { RPC, rpcErrorResponse } from './rpc-answers.js';
import type { UpstreamFetch } from './upstream-fetch.js';
import type { UpstreamSessionState, UpstreamTarget } from './upstream-link.js';

/** An open upstream session stream: `pipe` hands each JSON-RPC message on, then calls `onEnd` once. */
export interface UpstreamStream {
  pipe(onMessage: (m: JSONRPCMessage) => void, onEnd: () => void): void;
}

/**
 * Opens the upstream's session stream (Streamable HTTP `GET`, with the upstream session id and protocol
 * version). An upstream that refuses (405: it offers none; 404: the session is gone) is answered to the
 * client with the same status as a JSON-RPC error; an unreachable one is 502.
 */
export async function relayEventStream(
  fetcher: UpstreamFetch,
  target: UpstreamTarget,
  state: UpstreamSessionState,
  signal: AbortSignal,
): Promise<UpstreamStream | Response> {
  const headers: Record<string, string> = { ...target.headers, accept: 'text/event-stream' };
  if (state.upstreamSessionId) headers['mcp-session-id'] = state.upstreamSessionId;
  if (state.protocolVersion) headers['mcp-protocol-version'] = state.protocolVersion;
  let res: Response;
  try {
    res = await fetcher.fetchFor()(target.url, { method: 'GET', headers, signal });
  } catch (err) {
    return rpcErrorResponse(
      502,
      RPC.serverError,
      `The upstream MCP server could not be reached: ${err instanceof Error ? err.message : String(err)}`,
    );
  }
  if (res.status !== 200 || !res.body) {
    await res.body?.cancel().catch(() => undefined);
    return rpcErrorResponse(
      res.status >= 400 ? res.status : 502,
      RPC.serverError,
      `The upstream MCP server refused the session stream (HTTP ${res.status}).`,
    );
  }
  const body = res.body;
  return {
    pipe(onMessage, onEnd) {
      const decoder = new SseDecoder();
      const handle = (events: ReturnType<SseDecoder['push']>) => {
        for (const e of events) {
          if (e.event !== undefined && e.event !== 'message') continue;
          const parsed = JSONRPCMessageSchema.safeParse(safeJson(e.data));
          if (parsed.success) onMessage(parsed.data);
        }
      };
      (async () => {
        try {
          for await (const chunk of body) handle(decoder.push(chunk));
          handle(decoder.end());
        } catch {
          // The client left (abort) or the upstream dropped the stream: either way the stream ends.
        }
        onEnd();
      })();
    },
  };
}

function safeJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}
