import { useEffect, useState } from 'preact/hooks';
import type { ComponentChildren } from 'preact';
import { ApiError, messageOf, type ErrorBody } from '../api/client';
import { JsonEditor, parseJson } from './json-editor';
import { ErrorBanner, Section, Time, submit } from './ui';
import { useLoad } from '../lib/use-load';

/**
 * An organisation's singleton settings object (SSO, JWT) edited as JSON: `load` answers it (404: off),
 * `save` replaces it whole (the gateway validates it; a refusal shows its JSON path), `remove` turns it
 * off. `editable` turns the answer into the body a save sends (write-only members left for the user).
 */
export function SettingsEditor<T extends { last_updated_at?: string }>({
  title,
  id,
  load,
  save,
  remove,
  editable,
  example,
  offText,
  children,
}: {
  title: string;
  id: string;
  load(): Promise<T>;
  save(body: unknown): Promise<unknown>;
  remove(): Promise<unknown>;
  editable(current: T): unknown;
  example: unknown;
  offText: string;
  children?: ComponentChildren;
}) {
  const current = useLoad(
    () =>
      load().then(
        (value) => ({ on: true as const, value }),
        (err: unknown) => {
          if (err instanceof ApiError && err.status === 404) return { on: false as const, value: undefined };
          throw err;
        },
      ),
    [],
  );
  const [text, setText] = useState('');
  const [error, setError] = useState<ErrorBody>();
  const [other, setOther] = useState<string>();
  const [status, setStatus] = useState<string>();
  const [confirming, setConfirming] = useState(false);
  // What the form shows, with its text: set together once an answer arrives, so the editor never
  // appears empty and then has a late answer replace what the user started typing.
  const [shown, setShown] = useState<typeof current.value>();
  useEffect(() => {
    if (!current.value) return;
    setText(JSON.stringify(current.value.on ? editable(current.value.value) : example, null, 2));
    setShown(current.value);
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [current.value]);

  const run = async (fn: () => Promise<unknown>, done: string) => {
    setError(undefined);
    setOther(undefined);
    setStatus(undefined);
    try {
      await fn();
      setStatus(done);
      setConfirming(false);
      current.reload();
    } catch (err) {
      if (err instanceof ApiError && err.status === 400) setError(err.body);
      else setOther(messageOf(err));
    }
  };
  const onSave = () => {
    const parsed = parseJson(text);
    if (parsed.error) return setError(parsed.error);
    return run(() => save(parsed.value), 'Saved.');
  };

  return (
    <Section title={title} id={id}>
      <ErrorBanner error={current.error ?? other} />
      {children}
      {shown && (
        <>
          <p>
            {shown.on ? (
              <>
                On · last changed <Time value={shown.value.last_updated_at} />
              </>
            ) : (
              offText
            )}
          </p>
          <form onSubmit={submit(onSave)} aria-label={`${title} settings`}>
            <JsonEditor label={`${title} (JSON)`} value={text} onInput={setText} error={error} rows={12} />
            <div class="actions">
              <button type="submit" class="primary">
                {shown.on ? 'Save' : 'Turn on'}
              </button>
              {shown.on &&
                (confirming ? (
                  <>
                    <button type="button" class="danger" onClick={() => run(remove, 'Turned off.')}>
                      Confirm turning off
                    </button>
                    <button type="button" onClick={() => setConfirming(false)}>
                      Cancel
                    </button>
                  </>
                ) : (
                  <button type="button" class="danger" onClick={() => setConfirming(true)}>
                    Turn off
                  </button>
                ))}
              {status && (
                <span role="status" class="ok-text">
                  {status}
                </span>
              )}
            </div>
          </form>
        </>
      )}
    </Section>
  );
}
