import { useState } from 'preact/hooks';
import { LOG_FILTERS, type LogFilters } from '../lib/log-format';
import { submit } from './ui';

const LABELS: Record<(typeof LOG_FILTERS)[number], string> = {
  model: 'Model',
  provider: 'Provider',
  status_code: 'Status',
  trace_id: 'Trace id',
  api_key_id: 'API key id',
  cache_status: 'Cache',
};

/** The log filters as a form; applies on submit. */
export function LogFilterForm({ value, onApply }: { value: LogFilters; onApply(f: LogFilters): void }) {
  const [draft, setDraft] = useState<LogFilters>(value);
  return (
    <form class="filters" onSubmit={submit(() => onApply(draft))} aria-label="filters">
      {LOG_FILTERS.map((k) => (
        <label>
          <span>{LABELS[k]}</span>
          <input
            name={k}
            value={draft[k] ?? ''}
            inputMode={k === 'status_code' ? 'numeric' : undefined}
            onInput={(e) => setDraft({ ...draft, [k]: (e.target as HTMLInputElement).value.trim() })}
          />
        </label>
      ))}
      <button type="submit">Apply</button>
    </form>
  );
}
