import { createServer } from 'node:http';
import { randomUUID } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';

/**
 * An upstream MCP server (Streamable HTTP, `/mcp`) that asks its client things on its session stream, unrelated
 * to any request: a sampling request the moment the client sends `notifications/initialized`, and an elicitation
 * when tool `ask` is called (answered with what the client said). Its SDK transport has no event store: a message
 * sent while no session stream is connected is lost, as with most servers.
 */
export interface AskingUpstream {
  /** The MCP endpoint, e.g. http://127.0.0.1:1234/mcp. */
  url: string;
  /** What the client answered to the sampling request sent at initialization (the model text), or the error. */
  sampled: string[];
  /** Session streams (`GET`) the upstream accepted (one per session at a time: a second is refused 409). */
  streamsOpened: number;
  close(): Promise<void>;
}

/** Starts the server on 127.0.0.1 (a free port); `streamDelayMs` delays the answer to each `GET` (a session stream slow to connect). */
export async function startAskingUpstream(opts: { streamDelayMs?: number } = {}): Promise<AskingUpstream> {
  const sessions = new Map<string, StreamableHTTPServerTransport>();
  const up: AskingUpstream = { url: '', sampled: [], streamsOpened: 0, close: async () => undefined };
  const build = (): McpServer => {
    const mcp = new McpServer({ name: 'asking-upstream', version: '1.0.0' }, { capabilities: { tools: {} } });
    mcp.server.oninitialized = () => {
      mcp.server
        .createMessage({ messages: [{ role: 'user', content: { type: 'text', text: 'Say hi' } }], maxTokens: 10 }, { timeout: 60_000 })
        .then((r) => up.sampled.push(r.content.type === 'text' ? r.content.text : r.content.type))
        .catch((err: unknown) => up.sampled.push(`error: ${String(err)}`));
    };
    mcp.registerTool(
      'ask',
      { description: 'Asks the client for a name (elicitation on the session stream), then answers it.' },
      async () => {
        const answer = await mcp.server.elicitInput(
          { message: 'Your name?', requestedSchema: { type: 'object', properties: { name: { type: 'string' } }, required: ['name'] } },
          { timeout: 60_000 },
        );
        return { content: [{ type: 'text', text: `${answer.action}:${String(answer.content?.name ?? '')}` }] };
      },
    );
    return mcp;
  };
  const http = createServer((req, res) => {
    (async () => {
      const sid = req.headers['mcp-session-id'];
      const existing = typeof sid === 'string' ? sessions.get(sid) : undefined;
      if (existing && req.method === 'GET' && opts.streamDelayMs) await new Promise((r) => setTimeout(r, opts.streamDelayMs));
      if (existing && req.method === 'GET') {
        const raw = res as unknown as { writeHead: (status: number, ...rest: unknown[]) => unknown };
        const writeHead = raw.writeHead.bind(res);
        raw.writeHead = (status, ...rest) => {
          if (status === 200) up.streamsOpened++;
          return writeHead(status, ...rest);
        };
      }
      if (existing) return existing.handleRequest(req, res);
      if (typeof sid === 'string' || req.method !== 'POST') return void res.writeHead(404).end();
      const transport = new StreamableHTTPServerTransport({
        sessionIdGenerator: () => randomUUID(),
        onsessioninitialized: (id) => void sessions.set(id, transport),
      });
      await build().connect(transport);
      return transport.handleRequest(req, res);
    })().catch((err) => {
      if (!res.headersSent) res.writeHead(500).end(String(err));
    });
  });
  await new Promise<void>((r) => http.listen(0, '127.0.0.1', r));
  up.url = `http://127.0.0.1:${(http.address() as AddressInfo).port}/mcp`;
  up.close = async () => {
    await Promise.all([...sessions.values()].map((t) => t.close().catch(() => undefined)));
    http.closeAllConnections();
    await new Promise<void>((r) => http.close(() => r()));
  };
  return up;
}
