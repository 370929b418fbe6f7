import { style, globalStyle } from "@vanilla-extract/css";
import { vars } from "~/styles/theme.css";
import { layout } from "~/styles/tokens";

// Three columns, never narrower than 96px per item (seed §9), at every width:
// the layout is at most 720px wide, and a wider screen once made it 4 columns
// (issue 25).
export const grid = style({
  display: "grid",
  gridTemplateColumns: `repeat(3, minmax(${layout.gridMinItem}px, 1fr))`,
  gap: "18px 10px",
  padding: "0 16px",
});
export const item = style({ minWidth: layout.gridMinItem });
export const link = style({ display: "block" });
export const thumbWrap = style({
  position: "relative",
  aspectRatio: "3 / 4",
  borderRadius: 8,
  overflow: "hidden",
  background: vars.color.skeleton,
  boxShadow: `inset 0 0 0 1px ${vars.color.border}`,
});
export const thumb = style({ width: "100%", height: "100%", objectFit: "cover" });
export const badges = style({ position: "absolute", top: 5, left: 5, display: "flex", gap: 3, flexWrap: "wrap" });
export const badge = style({
  fontSize: 10,
  fontWeight: 800,
  lineHeight: "17px",
  padding: "0 5px",
  borderRadius: 4,
  color: "#fff",
  background: vars.color.badgeNew,
  letterSpacing: "-0.02em",
});
export const badgeUp = style({ background: vars.color.badgeUp });
export const badgeWff = style({ background: "rgba(0,0,0,0.62)" });
export const badgeAdult = style({ background: "#e5383b", position: "absolute", top: 5, right: 5, borderRadius: 999, width: 20, height: 20, lineHeight: "20px", padding: 0, textAlign: "center" });
export const badgeDeadline = style({
  position: "absolute",
  left: 0,
  right: 0,
  bottom: 0,
  textAlign: "center",
  borderRadius: 0,
  lineHeight: "20px",
  background: "linear-gradient(90deg, #ff4b4b, #ff7a45)",
});
export const badgeSoon = style({ background: "rgba(17,17,17,0.78)" });
export const title = style({
  marginTop: 7,
  fontSize: 13.5,
  fontWeight: 700,
  lineHeight: 1.35,
  display: "-webkit-box",
  WebkitLineClamp: 2,
  WebkitBoxOrient: "vertical",
  overflow: "hidden",
  wordBreak: "keep-all",
  overflowWrap: "anywhere",
  letterSpacing: "-0.01em",
});
export const authors = style({
  marginTop: 2,
  fontSize: 12,
  color: vars.color.textSubtle,
  whiteSpace: "nowrap",
  overflow: "hidden",
  textOverflow: "ellipsis",
});
export const meta = style({ marginTop: 2, fontSize: 11, color: vars.color.textMuted });

// list style rows
export const rows = style({ display: "flex", flexDirection: "column", padding: "0 16px" });
export const row = style({ display: "flex", gap: 12, padding: "10px 0", borderBottom: `1px solid ${vars.color.border}`, alignItems: "center" });
export const rowThumb = style({ width: 64, flex: "0 0 64px" });
export const rowBody = style({ flex: 1, minWidth: 0 });
export const rowSummary = style({ marginTop: 4, fontSize: 12, color: vars.color.textSubtle, display: "-webkit-box", WebkitLineClamp: 2, WebkitBoxOrient: "vertical", overflow: "hidden" });
export const rank = style({ width: 26, flex: "0 0 26px", fontSize: 18, fontWeight: 800, textAlign: "center", fontVariantNumeric: "tabular-nums" });
export const delta = style({ display: "block", fontSize: 10, fontWeight: 600, color: vars.color.textMuted });
export const deltaUp = style({ color: vars.color.danger });
export const deltaDown = style({ color: vars.color.accent });

// tabs
export const tabs = style({
  display: "flex",
  gap: 6,
  overflowX: "auto",
  padding: "10px 16px",
  scrollbarWidth: "none",
  position: "sticky",
  top: 0,
  zIndex: 5,
  background: vars.color.bg,
});
export const tab = style({
  flex: "0 0 auto",
  padding: "6px 13px",
  borderRadius: 999,
  fontSize: 13,
  fontWeight: 600,
  color: vars.color.textSubtle,
  background: vars.color.bgSubtle,
  whiteSpace: "nowrap",
  border: 0,
  cursor: "pointer",
});
export const tabActive = style({ background: vars.color.text, color: vars.color.bg });

export const controls = style({ display: "flex", gap: 8, padding: "0 16px 10px", alignItems: "center", flexWrap: "wrap" });
export const select = style({
  fontSize: 13,
  padding: "6px 8px",
  borderRadius: 8,
  border: `1px solid ${vars.color.border}`,
  background: vars.color.bg,
  color: vars.color.text,
});
export const count = style({ fontSize: 12, color: vars.color.textSubtle, marginRight: "auto" });
export const more = style({
  display: "block",
  margin: "20px 16px 8px",
  width: "calc(100% - 32px)",
  padding: "12px 0",
  borderRadius: 10,
  border: `1px solid ${vars.color.border}`,
  background: vars.color.bg,
  fontSize: 14,
  fontWeight: 600,
  cursor: "pointer",
});
export const empty = style({ padding: "56px 16px", textAlign: "center", color: vars.color.textSubtle, fontSize: 14 });
export const page = style({ paddingBottom: 32 });

export const eventBox = style({ marginTop: 16 });
export const eventBanner = style({ display: "block", margin: "0 16px", borderRadius: 12, overflow: "hidden", aspectRatio: "2 / 1", background: vars.color.skeleton });
export const eventText = style({ padding: "10px 16px 12px" });
export const eventTitle = style({ fontSize: 17, fontWeight: 800 });
export const eventBody = style({ marginTop: 4, fontSize: 13, color: vars.color.textSubtle });
export const eventPeriod = style({ marginTop: 4, fontSize: 12, color: vars.color.textMuted });
export const chip = style({ display: "inline-block", padding: "2px 8px", borderRadius: 999, fontSize: 11, fontWeight: 700, background: vars.color.bgSubtle, color: vars.color.textSubtle });
export const chipAccent = style({ background: vars.color.accentBg, color: vars.color.accentText });
globalStyle(`${eventBanner} img`, { width: "100%", height: "100%", objectFit: "cover" });
