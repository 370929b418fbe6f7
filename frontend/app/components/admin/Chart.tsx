import { useEffect, useRef, useState } from "react";
import type { ChartConfiguration, Plugin } from "chart.js";
import { useTheme } from "~/shell/theme";
import { vars } from "~/styles/theme.css";
import * as s from "./analytics.css";
import { chartVars } from "./chartTheme.css";

export type SeriesColor = "series1" | "series2" | "series3" | "series4";
export type Dataset = { label: string; data: number[]; color: SeriesColor; /** second value axis (right) */ right?: boolean };

type Props = {
  type: "line" | "bar";
  labels: string[];
  datasets: Dataset[];
  /** What the chart shows, for screen readers (the table next to it has the numbers). */
  label: string;
  horizontal?: boolean;
  stacked?: boolean;
  /** Index of a category to shade (the release instant's bucket). */
  mark?: number;
  /** When given, a button saves the chart as a PNG of this name. */
  png?: string;
};

/** cssValue reads the current value of a theme variable ("var(--x)"). */
function cssValue(ref: string): string {
  const name = /var\((--[^)]+)\)/.exec(ref)?.[1];
  return name ? getComputedStyle(document.documentElement).getPropertyValue(name).trim() : "";
}

/** A canvas chart drawn by Chart.js in the theme's colours; redrawn when the theme flips. */
export function Chart({ type, labels, datasets, label, horizontal, stacked, mark, png }: Props) {
  const ref = useRef<HTMLCanvasElement>(null);
  const { theme } = useTheme();
  const [failed, setFailed] = useState(false);
  const key = JSON.stringify({ type, labels, datasets, horizontal, stacked, mark });
  useEffect(() => {
    let cancelled = false;
    let chart: { destroy(): void } | undefined;
    import("./chartjs")
      .then(({ Chart: ChartJS }) => {
        if (cancelled || !ref.current) return;
        const text = cssValue(vars.color.textSubtle);
        const grid = cssValue(chartVars.grid);
        const markColor = cssValue(chartVars.marker);
        const markPlugin: Plugin = {
          id: "releaseMark",
          beforeDatasetsDraw(c) {
            if (mark === undefined || mark < 0) return;
            const x = c.scales.x;
            const half = labels.length > 1 ? Math.abs(x.getPixelForValue(1) - x.getPixelForValue(0)) / 2 : x.width / 2;
            const mid = x.getPixelForValue(mark);
            c.ctx.save();
            c.ctx.fillStyle = markColor;
            c.ctx.fillRect(mid - half, c.chartArea.top, half * 2, c.chartArea.bottom - c.chartArea.top);
            c.ctx.restore();
          },
        };
        const right = datasets.some((d) => d.right);
        const cfg: ChartConfiguration = {
          type,
          data: {
            labels,
            datasets: datasets.map((d) => {
              const color = cssValue(chartVars[d.color]);
              return {
                label: d.label,
                data: d.data,
                borderColor: color,
                backgroundColor: color,
                pointRadius: type === "line" ? 0 : undefined,
                borderWidth: type === "line" ? 2 : 0,
                yAxisID: !horizontal && d.right ? "y2" : undefined,
              };
            }),
          },
          options: {
            animation: false,
            responsive: true,
            maintainAspectRatio: false,
            indexAxis: horizontal ? "y" : "x",
            interaction: { mode: "index", intersect: false },
            plugins: { legend: { labels: { color: text, boxWidth: 12 } }, tooltip: { enabled: true } },
            scales: {
              x: { stacked, ticks: { color: text, maxRotation: 0, autoSkip: true }, grid: { color: grid } },
              y: { stacked, beginAtZero: true, ticks: { color: text, precision: 0 }, grid: { color: grid } },
              ...(right ? { y2: { position: "right" as const, beginAtZero: true, ticks: { color: text }, grid: { display: false } } } : {}),
            },
          },
          plugins: [markPlugin],
        };
        chart = new ChartJS(ref.current, cfg);
      })
      .catch(() => !cancelled && setFailed(true));
    return () => {
      cancelled = true;
      chart?.destroy();
    };
  }, [key, theme]); // eslint-disable-line react-hooks/exhaustive-deps
  if (failed) return <p className={s.muted}>차트를 그리지 못했습니다. 아래 표를 참고해 주세요.</p>;
  const save = () => {
    if (!ref.current || !png) return;
    const a = document.createElement("a");
    a.href = ref.current.toDataURL("image/png");
    a.download = png;
    a.click();
  };
  return (
    <>
      {png && (
        <div className={s.exports}>
          <button type="button" className={s.exportLink} onClick={save} aria-label={`${label} PNG로 저장`}>
            PNG
          </button>
        </div>
      )}
      <div className={s.canvasBox}>
        <canvas ref={ref} role="img" aria-label={label} />
      </div>
    </>
  );
}
