import type { JSONRPCMessage, JSONRPCResponse, RequestId } from '@modelcontextprotocol/sdk/types.js';

/** JSON-RPC error codes the gateway answers with (the MCP SDK's `ErrorCode`, plus the server-error range). */
export const RPC = {
  parseError: -32700,
  invalidRequest: -32600,
  invalidParams: -32602,
  internalError: -32603,
  /** Implementation-defined server error: the upstream failed, or the gateway refused (limits, access). */
  serverError: -32000,
  sessionNotFound: -32001,
} as const;

/** A JSON-RPC error answer to request `id`. */
export function rpcError(id: RequestId, code: number, message: string, data?: Record<string, unknown>): JSONRPCResponse {
  return { jsonrpc: '2.0', id, error: { code, message, ...(data ? { data } : {}) } } as JSONRPCResponse;
}

/** An HTTP answer holding one JSON-RPC error with a null id (what the Streamable HTTP transport answers for transport-level failures). */
export function rpcErrorResponse(status: number, code: number, message: string): Response {
  return new Response(JSON.stringify({ jsonrpc: '2.0', error: { code, message }, id: null }), {
    status,
    headers: { 'content-type': 'application/json' },
  });
}

/** The `method` of a message, when it is a request or notification. */
export function methodOf(message: JSONRPCMessage): string | undefined {
  return 'method' in message && typeof message.method === 'string' ? message.method : undefined;
}
