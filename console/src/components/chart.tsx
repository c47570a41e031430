import { useEffect, useRef, useState } from 'preact/hooks';
import uPlot from 'uplot';
import 'uplot/dist/uPlot.min.css';
import { DataTable } from './ui';

/** One series of a time chart: its label and a value per timestamp (null: no data). */
export interface Series {
  label: string;
  values: Array<number | null>;
}

const COLOURS = ['#2563eb', '#d97706', '#dc2626', '#059669'];

/**
 * A time-series chart (uPlot, drawn on a canvas) with a table view of the same numbers — a toggle
 * shows one or the other, and screen readers get the table. `times` are Unix seconds.
 */
export function TimeChart({
  title,
  times,
  series,
  format = (v) => String(v),
}: {
  title: string;
  times: number[];
  series: Series[];
  format?: (v: number) => string;
}) {
  const [table, setTable] = useState(false);
  const box = useRef<HTMLDivElement>(null);
  useEffect(() => {
    const el = box.current;
    if (table || !el || times.length === 0) return;
    const width = () => Math.max(280, el.clientWidth);
    const plot = new uPlot(
      {
        width: width(),
        height: 220,
        series: [
          {},
          ...series.map((s, i) => ({
            label: s.label,
            stroke: COLOURS[i % COLOURS.length],
            width: 2,
            value: (_u: uPlot, v: number | null) => (v === null ? '—' : format(v)),
          })),
        ],
        axes: [{}, { values: (_u: uPlot, ticks: number[]) => ticks.map(format), size: 70 }],
        legend: { show: true },
      },
      [times, ...series.map((s) => s.values)] as uPlot.AlignedData,
      el,
    );
    const resize = new ResizeObserver(() => plot.setSize({ width: width(), height: 220 }));
    resize.observe(el);
    return () => {
      resize.disconnect();
      plot.destroy();
    };
  }, [table, times, series]);
  const rows = times.map((t, i) => ({ t, i }));
  return (
    <figure class="chart">
      <figcaption>
        <span>{title}</span>
        <button type="button" onClick={() => setTable(!table)} aria-pressed={table}>
          {table ? 'Chart' : 'Table'}
        </button>
      </figcaption>
      {times.length === 0 ? (
        <p class="muted">No data in this range.</p>
      ) : table ? (
        <DataTable<{ t: number; i: number }>
          caption={title}
          rows={rows}
          rowKey={(r) => String(r.t)}
          columns={[
            { label: 'Time', cell: (r) => new Date(r.t * 1000).toLocaleString() },
            ...series.map((s) => ({
              label: s.label,
              numeric: true,
              cell: (r: { i: number }) => (s.values[r.i] === null ? '—' : format(s.values[r.i]!)),
            })),
          ]}
        />
      ) : (
        <div ref={box} class="chart-box" aria-hidden="true" />
      )}
    </figure>
  );
}
