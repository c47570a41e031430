import { useEffect, useRef } from 'preact/hooks';
import { locate, pathOfError } from '../lib/json-path';
import type { ErrorBody } from '../api/client';

/**
 * A JSON text editor (a plain textarea: no editor library in the bundle). When the server refuses the
 * document, `error` names the JSON path; the editor shows it and selects that value in the text.
 */
export function JsonEditor({
  label,
  value,
  onInput,
  error,
  rows = 16,
}: {
  label: string;
  value: string;
  onInput(v: string): void;
  error?: ErrorBody;
  rows?: number;
}) {
  const ref = useRef<HTMLTextAreaElement>(null);
  const path = error ? pathOfError(error.param, error.message) : undefined;
  useEffect(() => {
    const el = ref.current;
    if (!el || !path) return;
    const range = locate(value, path);
    if (!range) return;
    el.focus();
    el.setSelectionRange(range[0], range[1]);
    // Scroll the selection into view: the line's share of the text's height.
    const line = value.slice(0, range[0]).split('\n').length - 1;
    el.scrollTop = Math.max(0, line * (el.scrollHeight / Math.max(1, value.split('\n').length)) - el.clientHeight / 3);
    // Selecting once per refusal is enough: value changes while typing must not move the caret.
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [error]);
  return (
    <div class="json-editor">
      <label>
        <span>{label}</span>
        <textarea
          ref={ref}
          rows={rows}
          spellcheck={false}
          value={value}
          aria-invalid={error ? 'true' : 'false'}
          aria-describedby={error ? 'json-error' : undefined}
          onInput={(e) => onInput((e.target as HTMLTextAreaElement).value)}
        />
      </label>
      {error && (
        <p class="error" id="json-error" role="alert">
          {path && (
            <>
              <strong class="json-path" data-testid="json-error-path">
                {path}
              </strong>{' '}
            </>
          )}
          {error.message}
        </p>
      )}
    </div>
  );
}

/** Parses the editor's text; a syntax error becomes an error body the editor can show. */
export function parseJson(text: string): { value?: unknown; error?: ErrorBody } {
  try {
    return { value: JSON.parse(text) };
  } catch (err) {
    return {
      error: { message: `Not valid JSON: ${(err as Error).message}`, type: 'invalid_request_error', param: null, code: 'invalid_json' },
    };
  }
}
