import { globalStyle, style } from "@vanilla-extract/css";
import { vars } from "~/styles/theme.css";
import { radius, space } from "~/styles/tokens";

export const page = style({ maxWidth: 1080, margin: "0 auto", padding: `${space.lg} ${space.lg} 48px` });
export const top = style({ display: "flex", alignItems: "center", justifyContent: "space-between", gap: space.md, flexWrap: "wrap", marginBottom: space.lg });
export const h1 = style({ fontSize: 22, fontWeight: 700 });
export const h2 = style({ fontSize: 17, fontWeight: 700, marginBottom: space.sm });
export const muted = style({ color: vars.color.textSubtle, fontSize: 13 });
/** A screen's first line (the range or window it shows). */
export const lead = style([muted, { marginBottom: space.md }]);
/** A remark under a form or an alert. */
export const aside = style([muted, { marginTop: space.sm }]);
/** A panel's explanation above its chart. */
export const note = style([muted, { marginBottom: space.sm }]);

export const panel = style({
  background: vars.color.bgElevated,
  border: `1px solid ${vars.color.border}`,
  borderRadius: radius.lg,
  padding: space.lg,
  marginBottom: space.lg,
});

export const form = style({ display: "flex", flexWrap: "wrap", gap: space.md, alignItems: "flex-end" });
export const field = style({ display: "flex", flexDirection: "column", gap: space.xs, fontSize: 13, color: vars.color.textSubtle });
export const input = style({
  font: "inherit",
  fontSize: 15,
  color: vars.color.text,
  background: vars.color.bg,
  border: `1px solid ${vars.color.border}`,
  borderRadius: radius.md,
  padding: "8px 10px",
  minHeight: 40,
  selectors: { "&:focus-visible": { outline: `2px solid ${vars.color.accent}`, outlineOffset: 1 } },
});
export const button = style({
  minHeight: 40,
  padding: "8px 16px",
  border: "none",
  borderRadius: radius.md,
  background: vars.color.accentBg,
  color: vars.color.accentText,
  fontWeight: 700,
  cursor: "pointer",
  selectors: { "&:focus-visible": { outline: `2px solid ${vars.color.text}`, outlineOffset: 2 } },
});
export const buttonQuiet = style([button, { background: vars.color.bgSubtle, color: vars.color.text, border: `1px solid ${vars.color.border}` }]);

export const alert = style({
  border: `1px solid ${vars.color.danger}`,
  color: vars.color.danger,
  borderRadius: radius.md,
  padding: space.md,
  marginBottom: space.lg,
  fontWeight: 700,
});

export const kpis = style({ display: "grid", gridTemplateColumns: "repeat(auto-fit, minmax(160px, 1fr))", gap: space.md, marginBottom: space.lg });
export const kpi = style([panel, { marginBottom: 0 }]);
export const kpiValue = style({ fontSize: 22, fontWeight: 700, marginTop: space.xs });

export const grid = style({ display: "grid", gridTemplateColumns: "repeat(auto-fit, minmax(min(100%, 460px), 1fr))", gap: space.lg });

export const figure = style({ margin: 0 });
export const canvasBox = style({ position: "relative", height: 260, marginBottom: space.md });

export const table = style({ width: "100%", borderCollapse: "collapse", fontSize: 13, fontVariantNumeric: "tabular-nums" });
export const caption = style({ textAlign: "left", color: vars.color.textSubtle, padding: `0 0 ${space.sm}`, fontSize: 13 });
export const th = style({ textAlign: "left", fontWeight: 700, padding: "6px 8px", borderBottom: `1px solid ${vars.color.border}`, whiteSpace: "nowrap" });
export const td = style({ textAlign: "left", fontWeight: "normal", padding: "6px 8px", borderBottom: `1px solid ${vars.color.border}` });
export const num = style({ textAlign: "right" });
export const rowMark = style({ background: vars.color.bgSubtle });
globalStyle(`${rowMark} > *`, { fontWeight: 700 });
export const link = style({ color: vars.color.accent, textDecoration: "underline" });
export const details = style({ marginTop: space.sm });
export const summary = style({ cursor: "pointer", color: vars.color.textSubtle, fontSize: 13, padding: `${space.xs} 0` });

export const exportLink = style({
  display: "inline-block",
  fontSize: 12,
  padding: "4px 10px",
  marginRight: space.sm,
  borderRadius: radius.md,
  border: `1px solid ${vars.color.border}`,
  color: vars.color.text,
  background: vars.color.bgSubtle,
  cursor: "pointer",
  textDecoration: "none",
});
export const exports = style({ display: "flex", justifyContent: "flex-end", marginBottom: space.sm });
export const nav = style({ display: "flex", gap: space.md, flexWrap: "wrap", marginBottom: space.lg, fontSize: 14 });
export const navCurrent = style({ fontWeight: 700, color: vars.color.text });
export const kpiLive = style({ fontSize: 30, fontWeight: 700, marginTop: space.xs, fontVariantNumeric: "tabular-nums" });
export const badgeNew = style({ marginLeft: space.xs, fontSize: 11, padding: "1px 6px", borderRadius: radius.md, background: vars.color.accent, color: vars.color.accentText });
