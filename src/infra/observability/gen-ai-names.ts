/**
 * `gen_ai.operation.name` of a gateway endpoint (OpenTelemetry GenAI semantic conventions): `chat`,
 * `text_completion`, `embeddings`, `generate_content` …; an endpoint the conventions do not name keeps
 * its own name.
 * @see https://opentelemetry.io/docs/specs/semconv/gen-ai/gen-ai-spans/
 */
export function genAiOperationName(endpoint: string): string {
  switch (endpoint) {
    case 'chat':
    case 'messages':
    case 'responses':
      return 'chat';
    case 'completions':
      return 'text_completion';
    case 'embeddings':
      return 'embeddings';
    default:
      return endpoint;
  }
}
