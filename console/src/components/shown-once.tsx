import { useState } from 'preact/hooks';

/** A secret value shown once (a key after create or rotate, a SCIM token), until the user dismisses it. */
export function ShownOnce({
  title,
  value,
  note,
  onDone,
  testId = 'new-key',
}: {
  title: string;
  value: string;
  note?: string;
  onDone(): void;
  testId?: string;
}) {
  const [copied, setCopied] = useState(false);
  return (
    <div class="card shown-once" role="status" aria-live="polite">
      <h2>{title}</h2>
      <p>Copy it now: the gateway will not show it again.</p>
      <code class="secret" data-testid={testId}>
        {value}
      </code>
      {note && <p class="muted">{note}</p>}
      <div class="actions">
        <button type="button" onClick={() => navigator.clipboard?.writeText(value).then(() => setCopied(true))}>
          {copied ? 'Copied' : 'Copy'}
        </button>
        <button type="button" class="primary" onClick={onDone}>
          Done
        </button>
      </div>
    </div>
  );
}
