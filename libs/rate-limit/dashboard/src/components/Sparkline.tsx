import type { Series } from '../types';
import { fmtCount } from '../format';

const W = 120;
const H = 32;

function path(values: number[], max: number): string {
  if (values.length === 0) return '';
  const step = values.length > 1 ? W / (values.length - 1) : W;
  return values
    .map(
      (v, i) =>
        `${i === 0 ? 'M' : 'L'}${(i * step).toFixed(1)},${(H - 1 - (v / max) * (H - 2)).toFixed(1)}`,
    )
    .join('');
}

/**
 * Requests (all outcomes) and rejections over the last hour, in plain SVG: one uPlot per card
 * would cost far more than the picture is worth.
 */
export function Sparkline({ series }: { series: Series | undefined }) {
  if (!series || series.allowed.length === 0) {
    return (
      <div class="sparkline sparkline-empty" aria-hidden="true">
        no data
      </div>
    );
  }
  const rejected = series.rejected.map((r, i) => r + (series.shadowRejected[i] ?? 0));
  const total = series.allowed.map((a, i) => a + rejected[i]);
  const max = Math.max(1, ...total);
  const sum = (xs: number[]) => xs.reduce((a, b) => a + b, 0);
  const totalPath = path(total, max);
  const label = `Last hour: ${fmtCount(sum(series.allowed))} allowed, ${fmtCount(sum(rejected))} rejected`;
  return (
    <svg
      class="sparkline"
      viewBox={`0 0 ${W} ${H}`}
      preserveAspectRatio="none"
      role="img"
      aria-label={label}
    >
      <title>{label}</title>
      <path d={`${totalPath}L${W},${H}L0,${H}Z`} class="spark-area" />
      <path d={totalPath} class="spark-total" vector-effect="non-scaling-stroke" />
      <path d={path(rejected, max)} class="spark-rejected" vector-effect="non-scaling-stroke" />
    </svg>
  );
}
