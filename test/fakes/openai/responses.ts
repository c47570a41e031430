import type { ServerResponse } from 'node:http';
import { createHash } from 'node:crypto';
import { sendJson, writeFrames, type FakeFault, type RecordedRequest } from '../shared/fake-server.js';

/**
 * A minimal `POST /v1/responses` of the OpenAI fake: JSON answers and the named-event SSE stream
 * (`event: <type>` + `data: <json>`, no `[DONE]`), as OpenAI sends them.
 * @see https://platform.openai.com/docs/api-reference/responses
 *
 * Deterministic like the chat fake: `echo: <last user text>`; with function tools and a user turn last
 * it calls the first tool with `{"query": <text>}`; after a `function_call_output` it answers
 * `tool said: <output>`. `previous_response_id` must name a response this fake created (its last user
 * text is then known). `max_output_tokens` below the answer's size cuts it (`incomplete`).
 */
const created = new Map<string, { lastUser: string }>();

function hash(text: string): string {
  return createHash('sha256').update(text).digest('hex');
}

function tokens(text: string): number {
  return Math.max(1, Math.ceil(text.length / 4));
}

function textOf(content: unknown): string {
  if (typeof content === 'string') return content;
  if (Array.isArray(content))
    return content
      .filter((p) => typeof p?.text === 'string')
      .map((p) => p.text)
      .join(' ');
  return '';
}

/** Serves `POST {prefix}/responses`. */
export async function handleResponses(
  req: RecordedRequest,
  res: ServerResponse,
  fault: FakeFault | undefined,
  frameDelayMs?: number,
): Promise<void> {
  const body = req.body;
  if (body.input === undefined)
    return sendJson(res, 400, {
      error: {
        message: "Missing required parameter: 'input'.",
        type: 'invalid_request_error',
        param: 'input',
        code: 'missing_required_parameter',
      },
    });
  if (body.previous_response_id && !created.has(body.previous_response_id)) {
    return sendJson(res, 400, {
      error: {
        message: `Previous response with id '${body.previous_response_id}' not found.`,
        type: 'invalid_request_error',
        param: 'previous_response_id',
        code: 'previous_response_not_found',
      },
    });
  }
  const items: any[] = typeof body.input === 'string' ? [{ role: 'user', content: body.input }] : body.input;
  const last = items[items.length - 1];
  const lastUserItem = [...items].reverse().find((i) => (i.type ?? 'message') === 'message' && i.role === 'user');
  const userText = lastUserItem ? textOf(lastUserItem.content) : (created.get(body.previous_response_id)?.lastUser ?? '');
  const id = 'resp_fake' + hash(JSON.stringify(body) + created.size).slice(0, 24);
  created.set(id, { lastUser: userText });
  const inputTokens =
    items.reduce((n, i) => n + tokens(textOf(i.content ?? i.output)), 0) + (body.instructions ? tokens(body.instructions) : 0);
  const fnTools = Array.isArray(body.tools) ? body.tools.filter((t: any) => t.type === 'function') : [];
  let output: any[];
  let outputText = '';
  let status = 'completed';
  if (last?.type === 'function_call_output') {
    outputText = `tool said: ${typeof last.output === 'string' ? last.output : textOf(last.output)}`;
  } else if (fnTools.length && body.tool_choice !== 'none') {
    output = [
      {
        id: 'fc_fake' + hash(userText).slice(0, 16),
        type: 'function_call',
        status: 'completed',
        arguments: JSON.stringify({ query: userText }),
        call_id: 'call_' + hash(userText).slice(0, 12),
        name: fnTools[0].name,
      },
    ];
  } else {
    outputText = `echo: ${userText}`;
  }
  if (typeof body.max_output_tokens === 'number' && outputText && tokens(outputText) > body.max_output_tokens) {
    outputText = outputText.slice(0, body.max_output_tokens * 4);
    status = 'incomplete';
  }
  output ??= [
    {
      id: 'msg_fake' + hash(outputText).slice(0, 16),
      type: 'message',
      status: status === 'completed' ? 'completed' : 'incomplete',
      role: 'assistant',
      content: [{ type: 'output_text', text: outputText, annotations: [], logprobs: [] }],
    },
  ];
  const outputTokens = outputText ? tokens(outputText) : 8;
  const response = {
    id,
    object: 'response',
    created_at: 1700000000,
    status,
    background: false,
    error: null,
    incomplete_details: status === 'incomplete' ? { reason: 'max_output_tokens' } : null,
    instructions: body.instructions ?? null,
    max_output_tokens: body.max_output_tokens ?? null,
    model: body.model ?? 'gpt-4o',
    output,
    parallel_tool_calls: body.parallel_tool_calls ?? true,
    previous_response_id: body.previous_response_id ?? null,
    reasoning: { effort: null, summary: null },
    store: body.store ?? true,
    temperature: body.temperature ?? 1,
    text: body.text ?? { format: { type: 'text' } },
    tool_choice: body.tool_choice ?? 'auto',
    tools: body.tools ?? [],
    top_p: body.top_p ?? 1,
    truncation: body.truncation ?? 'disabled',
    usage: {
      input_tokens: inputTokens,
      input_tokens_details: { cached_tokens: 0 },
      output_tokens: outputTokens,
      output_tokens_details: { reasoning_tokens: 0 },
      total_tokens: inputTokens + outputTokens,
    },
    user: body.user ?? null,
    metadata: body.metadata ?? {},
  };
  if (!body.stream) return sendJson(res, 200, response);
  let seq = 0;
  const frame = (type: string, data: Record<string, unknown>) =>
    `event: ${type}\ndata: ${JSON.stringify({ type, sequence_number: seq++, ...data })}\n\n`;
  const pending = { ...response, status: 'in_progress', output: [], usage: null, incomplete_details: null };
  const frames = [frame('response.created', { response: pending }), frame('response.in_progress', { response: pending })];
  output.forEach((item, output_index) => {
    if (item.type === 'function_call') {
      frames.push(frame('response.output_item.added', { output_index, item: { ...item, status: 'in_progress', arguments: '' } }));
      const half = Math.ceil(item.arguments.length / 2);
      for (const delta of [item.arguments.slice(0, half), item.arguments.slice(half)])
        frames.push(frame('response.function_call_arguments.delta', { item_id: item.id, output_index, delta }));
      frames.push(
        frame('response.function_call_arguments.done', { item_id: item.id, output_index, name: item.name, arguments: item.arguments }),
      );
    } else {
      frames.push(frame('response.output_item.added', { output_index, item: { ...item, status: 'in_progress', content: [] } }));
      frames.push(
        frame('response.content_part.added', {
          item_id: item.id,
          output_index,
          content_index: 0,
          part: { type: 'output_text', text: '', annotations: [], logprobs: [] },
        }),
      );
      for (const delta of outputText.split(/(?<= )/))
        frames.push(frame('response.output_text.delta', { item_id: item.id, output_index, content_index: 0, delta, logprobs: [] }));
      frames.push(frame('response.output_text.done', { item_id: item.id, output_index, content_index: 0, text: outputText, logprobs: [] }));
      frames.push(frame('response.content_part.done', { item_id: item.id, output_index, content_index: 0, part: item.content[0] }));
    }
    frames.push(frame('response.output_item.done', { output_index, item }));
  });
  frames.push(frame(status === 'completed' ? 'response.completed' : 'response.incomplete', { response }));
  res.writeHead(200, { 'content-type': 'text/event-stream; charset=utf-8', 'cache-control': 'no-cache', connection: 'keep-alive' });
  await writeFrames(res, frames, fault, frameDelayMs);
}
