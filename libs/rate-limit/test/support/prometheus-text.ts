/** `name{labels} value` lines of a Prometheus text exposition, by series (comments skipped). */
export function parseMetrics(text: string): Map<string, number> {
  const series = new Map<string, number>();
  for (const line of text.split('\n')) {
    if (line === '' || line.startsWith('#')) continue;
    const space = line.lastIndexOf(' ');
    series.set(line.slice(0, space), Number(line.slice(space + 1)));
  }
  return series;
}

/** Sum of every series of `name` (any labels). */
export function metricTotal(metrics: Map<string, number>, name: string): number {
  let total = 0;
  for (const [series, value] of metrics) {
    if (series === name || series.startsWith(`${name}{`)) total += value;
  }
  return total;
}
