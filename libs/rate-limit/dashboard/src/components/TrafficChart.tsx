import { useEffect, useRef } from 'preact/hooks';
import uPlot from 'uplot';
import { fmtCount } from '../format';
import type { PolicyTraffic } from '../types';

const HEIGHT = 240;

// Okabe-Ito colours: told apart with any common colour-vision deficiency; dashes too.
export const SERIES = [
  { key: 'allowed', label: 'Allowed', color: '#0072B2', dash: undefined },
  { key: 'rejected', label: 'Rejected', color: '#D55E00', dash: undefined },
  { key: 'shadowRejected', label: 'Shadow-rejected', color: '#AA4499', dash: [6, 4] },
] as const;

type Data = [number[], number[], number[], number[]];

function toData(t: PolicyTraffic | null): Data {
  if (!t) return [[], [], [], []];
  const xs = t.allowed.map((_, i) => (t.start + i * t.bucketMs) / 1000);
  // The last bucket is in progress (it ends at `end`): its rate is over the time it has run,
  // so the right edge does not dip.
  const lastStart = t.start + (t.allowed.length - 1) * t.bucketMs;
  const lastSeconds = Math.min(t.bucketMs, Math.max(1000, t.end - lastStart)) / 1000;
  const rate = (v: number[]) =>
    v.map((n, i) => n / (i === v.length - 1 ? lastSeconds : t.bucketMs / 1000));
  return [xs, rate(t.allowed), rate(t.rejected), rate(t.shadowRejected)];
}

const rateText = (v: number | null) => (v === null ? '–' : `${Math.round(v * 10) / 10}/s`);

/**
 * Per-second rates of the last hour. The chart is made once and fed with setData on each poll,
 * so refreshing neither flickers nor moves the page; its height is fixed for the same reason.
 */
export function TrafficChart({
  traffic,
  missing,
}: {
  traffic: PolicyTraffic | null;
  missing: boolean;
}) {
  const box = useRef<HTMLDivElement>(null);
  const plot = useRef<uPlot | null>(null);

  useEffect(() => {
    const el = box.current!;
    const opts: uPlot.Options = {
      width: Math.max(200, el.clientWidth),
      height: HEIGHT,
      legend: { show: false },
      cursor: { drag: { x: false, y: false } },
      scales: { y: { range: (_u, _min, max) => [0, Math.max(1, max * 1.1)] } },
      axes: [
        { stroke: '#3d4451', grid: { stroke: '#e3e6ea' }, ticks: { stroke: '#c9ced4' } },
        {
          stroke: '#3d4451',
          grid: { stroke: '#e3e6ea' },
          ticks: { stroke: '#c9ced4' },
          values: (_u, vals) => vals.map((v) => `${v}/s`),
          size: 56,
        },
      ],
      series: [
        {},
        ...SERIES.map((s) => ({
          label: s.label,
          stroke: s.color,
          width: 2,
          dash: s.dash ? [...s.dash] : undefined,
          points: { show: false },
          value: (_u: uPlot, v: number | null) => rateText(v),
        })),
      ],
    };
    const u = new uPlot(opts, toData(null), el);
    plot.current = u;
    const resize = new ResizeObserver(() => {
      const width = Math.max(200, el.clientWidth);
      if (width !== u.width) u.setSize({ width, height: HEIGHT });
    });
    resize.observe(el);
    return () => {
      resize.disconnect();
      u.destroy();
      plot.current = null;
    };
  }, []);

  useEffect(() => {
    plot.current?.setData(toData(traffic));
  }, [traffic]);

  const sum = (v: number[] | undefined) => (v ?? []).reduce((a, b) => a + b, 0);
  const empty = !traffic || traffic.allowed.length === 0;
  const summary = traffic
    ? `Requests per second over the last hour. In total ${SERIES.map((s) => `${fmtCount(sum(traffic[s.key]))} ${s.label.toLowerCase()}`).join(', ')}.`
    : 'Requests per second over the last hour: no data.';

  return (
    // data-total: the requests charted, for tests (the canvas itself cannot be read back).
    <figure
      class="chart"
      data-testid="traffic-chart"
      data-total={traffic ? SERIES.reduce((n, s) => n + sum(traffic[s.key]), 0) : 0}
    >
      <div class="chart-plot" style={{ height: `${HEIGHT}px` }}>
        <div ref={box} role="img" aria-label={summary} />
        {empty && (
          <p class="chart-empty">
            {missing ? 'No data (traffic history unavailable)' : 'No data yet'}
          </p>
        )}
      </div>
      <figcaption>
        <ul class="legend">
          {SERIES.map((s) => (
            <li key={s.key}>
              <svg width="22" height="10" aria-hidden="true">
                <line
                  x1="0"
                  y1="5"
                  x2="22"
                  y2="5"
                  stroke={s.color}
                  stroke-width="3"
                  stroke-dasharray={s.dash ? s.dash.join(' ') : undefined}
                />
              </svg>
              {s.label}
              <span class="muted legend-count">
                {traffic ? `(${fmtCount(sum(traffic[s.key]))} in the hour)` : ''}
              </span>
            </li>
          ))}
        </ul>
      </figcaption>
    </figure>
  );
}
