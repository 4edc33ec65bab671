import { useEffect, useId, useRef, useState } from 'react';
import type { Bucket } from '../api/index.ts';
import { formatCents, formatCentsShort, formatCount, formatDay } from '../format.ts';

const HEIGHT = 240;
const MARGIN = { top: 12, right: 8, bottom: 30, left: 64 };

/** A round axis maximum and step: 1, 2 or 5 times a power of ten, about four ticks. */
export function niceScale(max: number): { top: number; step: number } {
  if (max <= 0) return { top: 1, step: 0.25 };
  const raw = max / 4;
  const power = 10 ** Math.floor(Math.log10(raw));
  const step = ([1, 2, 5, 10].find((m) => m * power >= raw) ?? 10) * power;
  return { top: Math.ceil(max / step) * step, step };
}

function useWidth<T extends HTMLElement>(): [React.RefObject<T | null>, number] {
  const ref = useRef<T>(null);
  const [width, setWidth] = useState(640);
  useEffect(() => {
    const element = ref.current;
    if (!element) return;
    const observer = new ResizeObserver((entries) => {
      const w = entries[0]?.contentRect.width;
      if (w && Math.abs(w - width) > 1) setWidth(w);
    });
    observer.observe(element);
    return () => observer.disconnect();
  }, [width]);
  return [ref, width];
}

/**
 * Spend per day as bars. For assistive technology the SVG is one image with a title and a summary,
 * and the same figures follow as a table (open by default on narrow screens' request, collapsed else).
 */
export function SpendChart(props: { buckets: Bucket[]; title: string }) {
  const { buckets } = props;
  const id = useId();
  const [ref, width] = useWidth<HTMLDivElement>();
  const innerWidth = Math.max(100, width - MARGIN.left - MARGIN.right);
  const innerHeight = HEIGHT - MARGIN.top - MARGIN.bottom;
  const max = Math.max(0, ...buckets.map((b) => b.cost));
  const { top, step } = niceScale(max);
  const band = innerWidth / Math.max(1, buckets.length);
  const barWidth = Math.max(2, Math.min(48, band * 0.7));
  const labelEvery = Math.max(1, Math.ceil(buckets.length / Math.max(1, Math.floor(innerWidth / 64))));
  const ticks: number[] = [];
  for (let v = 0; v <= top + step / 2; v += step) ticks.push(v);
  const y = (cents: number) => MARGIN.top + innerHeight - (cents / top) * innerHeight;

  const total = buckets.reduce((s, b) => s + b.cost, 0);
  const peak = buckets.reduce<Bucket | undefined>((best, b) => (!best || b.cost > best.cost ? b : best), undefined);
  const first = buckets[0];
  const last = buckets.at(-1);
  const summary =
    buckets.length === 0
      ? 'No days in this period.'
      : `${formatCents(total)} spent over ${buckets.length} ${buckets.length === 1 ? 'day' : 'days'}` +
        (first && last && buckets.length > 1 ? ` from ${formatDay(first.key)} to ${formatDay(last.key)}` : '') +
        (peak && peak.cost > 0 ? `; highest on ${formatDay(peak.key)} with ${formatCents(peak.cost)}.` : '; nothing was spent.');

  return (
    <figure className="chart">
      <div ref={ref} className="chart-canvas">
        <svg width={width} height={HEIGHT} role="img" aria-labelledby={`${id}-title ${id}-desc`} data-testid="spend-chart">
          <title id={`${id}-title`}>{props.title}</title>
          <desc id={`${id}-desc`}>{summary}</desc>
          <g className="chart-grid">
            {ticks.map((t) => (
              <g key={t}>
                <line x1={MARGIN.left} x2={MARGIN.left + innerWidth} y1={y(t)} y2={y(t)} />
                <text x={MARGIN.left - 6} y={y(t)} dy="0.32em" textAnchor="end">
                  {formatCentsShort(t)}
                </text>
              </g>
            ))}
          </g>
          <g className="chart-bars">
            {buckets.map((b, i) => {
              const h = Math.max(b.cost > 0 ? 1 : 0, innerHeight - (y(b.cost) - MARGIN.top));
              const x = MARGIN.left + i * band + (band - barWidth) / 2;
              return (
                <rect key={b.key} x={x} y={MARGIN.top + innerHeight - h} width={barWidth} height={h} rx={2} data-day={b.key} data-cost={b.cost}>
                  <title>{`${formatDay(b.key)}: ${formatCents(b.cost)}, ${formatCount(b.count)} requests`}</title>
                </rect>
              );
            })}
          </g>
          <g className="chart-axis">
            <line x1={MARGIN.left} x2={MARGIN.left + innerWidth} y1={MARGIN.top + innerHeight} y2={MARGIN.top + innerHeight} />
            {buckets.map((b, i) =>
              i % labelEvery === 0 ? (
                <text key={b.key} x={MARGIN.left + i * band + band / 2} y={HEIGHT - 10} textAnchor="middle">
                  {formatDay(b.key)}
                </text>
              ) : null,
            )}
          </g>
        </svg>
      </div>
      <figcaption>{summary}</figcaption>
      <details className="chart-table">
        <summary>Show spend by day as a table</summary>
        <table>
          <caption className="visually-hidden">{props.title}</caption>
          <thead>
            <tr>
              <th scope="col">Day (UTC)</th>
              <th scope="col" className="num">
                Requests
              </th>
              <th scope="col" className="num">
                Spend
              </th>
            </tr>
          </thead>
          <tbody>
            {buckets.map((b) => (
              <tr key={b.key}>
                <th scope="row">{b.key}</th>
                <td className="num">{formatCount(b.count)}</td>
                <td className="num">{formatCents(b.cost)}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </details>
    </figure>
  );
}

/** A list of buckets with proportional bars: spend by model or by type. */
export function BucketTable(props: { buckets: Bucket[]; caption: string; keyLabel: string; empty: string }) {
  const max = Math.max(0, ...props.buckets.map((b) => b.cost));
  if (props.buckets.length === 0) return <p className="muted">{props.empty}</p>;
  return (
    <table className="bucket-table">
      <caption>{props.caption}</caption>
      <thead>
        <tr>
          <th scope="col">{props.keyLabel}</th>
          <th scope="col" className="num">
            Requests
          </th>
          <th scope="col" className="num">
            Spend
          </th>
        </tr>
      </thead>
      <tbody>
        {props.buckets.map((b) => (
          <tr key={b.key}>
            <th scope="row">
              <span className="bucket-key">{b.key}</span>
              <span className="bucket-bar" aria-hidden="true" style={{ width: `${max > 0 ? (b.cost / max) * 100 : 0}%` }} />
            </th>
            <td className="num">{formatCount(b.count)}</td>
            <td className="num">{formatCents(b.cost)}</td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}
