import type { ServerResponse } from 'node:http';
import { sendJson, writeFrames, type FakeFault } from '../shared/fake-server.js';
import { answerEvents, compose } from '../anthropic/server.js';
import { FakeBadRequest, validateMessagesBody } from '../anthropic/validate.js';
import { encodeChunk, encodeException } from './event-stream.js';

/** A queued exception for the next streamed answer (see FakeBedrock.failStream). */
export interface InvokeStreamException {
  afterEvents: number;
  exceptionType: string;
  message: string;
}

/**
 * Claude on Bedrock through InvokeModel (`/model/{id}/invoke`) and InvokeModelWithResponseStream
 * (`/invoke-with-response-stream`): the Messages body with `anthropic_version: bedrock-2023-05-31`, no
 * `model` (it is in the path) and no `stream`; `anthropic_beta` as a list of strings. The answer is the
 * Anthropic message (id `msg_bdrk_…`); a stream is one event-stream `chunk` per Anthropic event, its
 * payload `{"bytes": base64(event JSON)}`, the `message_stop` event carrying `amazon-bedrock-invocationMetrics`.
 * Answers are the Anthropic fake's (echo, tool_use of the first tool, `tool said: …`).
 * @see https://docs.aws.amazon.com/bedrock/latest/userguide/model-parameters-anthropic-claude-messages-request-response.html
 * @see https://docs.aws.amazon.com/bedrock/latest/APIReference/API_runtime_InvokeModelWithResponseStream.html
 */
export async function answerAnthropicInvoke(
  modelId: string,
  body: any,
  stream: boolean,
  res: ServerResponse,
  sendError: (res: ServerResponse, status: number, type: string, message: string) => void,
  fault: FakeFault | undefined,
  exception: InvokeStreamException | undefined,
  frameDelayMs?: number,
): Promise<void> {
  if (body?.anthropic_version !== 'bedrock-2023-05-31')
    return sendError(
      res,
      400,
      'ValidationException',
      'Malformed input request: #: required key [anthropic_version] not found, please reformat your input and try again.',
    );
  for (const key of ['model', 'stream']) {
    if (key in body)
      return sendError(
        res,
        400,
        'ValidationException',
        `Malformed input request: #: extraneous key [${key}] is not permitted, please reformat your input and try again.`,
      );
  }
  if (
    body.anthropic_beta !== undefined &&
    !(Array.isArray(body.anthropic_beta) && body.anthropic_beta.every((b: unknown) => typeof b === 'string'))
  ) {
    return sendError(
      res,
      400,
      'ValidationException',
      'Malformed input request: #/anthropic_beta: expected type: JSONArray, please reformat your input and try again.',
    );
  }
  const { anthropic_version: _v, anthropic_beta: _b, ...messages } = body;
  try {
    validateMessagesBody({ ...messages, model: modelId });
  } catch (err) {
    if (err instanceof FakeBadRequest) return sendError(res, 400, 'ValidationException', err.message);
    throw err;
  }
  const answer = compose({ ...messages, model: modelId }, {});
  answer.id = 'msg_bdrk_' + answer.id.slice(8);
  const headers = { 'x-amzn-requestid': 'invoke-' + answer.id.slice(9, 21) };
  if (!stream) {
    return sendJson(res, 200, answer, {
      ...headers,
      'x-amzn-bedrock-input-token-count': String(answer.usage.input_tokens),
      'x-amzn-bedrock-output-token-count': String(answer.usage.output_tokens),
    });
  }
  const events = answerEvents(answer).map((e) =>
    e.type === 'message_stop'
      ? {
          ...e,
          'amazon-bedrock-invocationMetrics': {
            inputTokenCount: answer.usage.input_tokens,
            outputTokenCount: answer.usage.output_tokens,
            invocationLatency: 42,
            firstByteLatency: 12,
          },
        }
      : e,
  );
  let frames = events.map((e) => encodeChunk(Buffer.from(JSON.stringify(e))));
  if (exception) frames = [...frames.slice(0, exception.afterEvents), encodeException(exception.exceptionType, exception.message)];
  res.writeHead(200, {
    'content-type': 'application/vnd.amazon.eventstream',
    'x-amzn-bedrock-content-type': 'application/json',
    ...headers,
  });
  await writeFrames(res, frames, fault, frameDelayMs);
}
