/** @jsxImportSource hono/jsx */
/**
 * The broken-link count over a domain's last crawls as a tiny inline SVG line, drawn on the server (the CSP
 * allows no script to draw it, and it needs none). Oldest crawl on the left. Numbers only: nothing crawled.
 */

const WIDTH = 120;
const HEIGHT = 30;
const PAD = 3;

/** A sparkline of `values` (oldest first); a text fallback for fewer than two. */
export function TrendChart(props: { values: number[]; label: string }) {
  const { values } = props;
  if (values.length < 2) return <span class="muted">{values.length === 1 ? `${values[0]}` : "—"}</span>;
  const max = Math.max(1, ...values);
  const step = (WIDTH - 2 * PAD) / (values.length - 1);
  const points = values.map((v, i) => [PAD + i * step, HEIGHT - PAD - (v / max) * (HEIGHT - 2 * PAD)] as const);
  const last = points[points.length - 1]!;
  return (
    <svg class="trend" viewBox={`0 0 ${WIDTH} ${HEIGHT}`} role="img" aria-label={props.label}>
      <title>{props.label}</title>
      <line x1={PAD} y1={HEIGHT - PAD} x2={WIDTH - PAD} y2={HEIGHT - PAD} />
      <polyline points={points.map(([x, y]) => `${x.toFixed(1)},${y.toFixed(1)}`).join(" ")} />
      <circle cx={last[0].toFixed(1)} cy={last[1].toFixed(1)} r="2.5" />
    </svg>
  );
}
