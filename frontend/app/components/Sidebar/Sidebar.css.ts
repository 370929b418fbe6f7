import { style } from "@vanilla-extract/css";
import { vars } from "~/styles/theme.css";
import { zIndex } from "~/styles/tokens";

export const panel = style({
  position: "fixed",
  top: 0,
  right: 0,
  bottom: 0,
  width: "min(320px, 86vw)",
  background: vars.color.bg,
  zIndex: zIndex.sidebar + 60,
  overflowY: "auto",
  boxShadow: "-8px 0 30px rgba(0,0,0,.2)",
  display: "flex",
  flexDirection: "column",
});
export const top = style({ display: "flex", alignItems: "center", justifyContent: "space-between", padding: "12px 12px 12px 20px" });
export const close = style({ width: 40, height: 40, border: 0, background: "transparent", fontSize: 22, cursor: "pointer", borderRadius: 999 });
export const user = style({ padding: "8px 20px 20px", borderBottom: `8px solid ${vars.color.bgSubtle}` });
// An e-mail address breaks before its "@" (a <wbr> there, see Sidebar.tsx) and
// only mid-word when one part alone is wider than the panel: break-all split
// addresses anywhere (issue 24).
export const name = style({ fontWeight: 700, fontSize: 16, wordBreak: "normal", overflowWrap: "anywhere" });
export const money = style({ marginTop: 8, display: "flex", justifyContent: "space-between", fontSize: 14, color: vars.color.textSubtle });
export const moneyAmount = style({ fontWeight: 700, color: vars.color.text });
export const primary = style({
  display: "flex",
  alignItems: "center",
  justifyContent: "center",
  width: "100%",
  height: 44,
  marginTop: 12,
  border: 0,
  borderRadius: 8,
  background: vars.color.accentBg,
  color: vars.color.accentText,
  fontWeight: 700,
  cursor: "pointer",
});
export const group = style({ padding: "16px 20px", borderBottom: `1px solid ${vars.color.border}` });
export const groupTitle = style({ fontSize: 13, color: vars.color.textSubtle, marginBottom: 10, fontWeight: 600 });
export const links = style({ display: "grid", gridTemplateColumns: "1fr 1fr", gap: "12px 8px", fontSize: 15 });
export const segmented = style({ display: "flex", gap: 0, border: `1px solid ${vars.color.border}`, borderRadius: 8, overflow: "hidden" });
export const segment = style({
  flex: 1,
  height: 38,
  border: 0,
  background: "transparent",
  cursor: "pointer",
  fontSize: 14,
  selectors: { '&[aria-checked="true"]': { background: vars.color.text, color: vars.color.bg, fontWeight: 700 } },
});
export const row = style({ display: "flex", alignItems: "center", justifyContent: "space-between", gap: 12 });
export const switchBtn = style({
  width: 50,
  height: 30,
  borderRadius: 999,
  border: 0,
  background: vars.color.border,
  position: "relative",
  cursor: "pointer",
  selectors: {
    '&[aria-checked="true"]': { background: vars.color.danger },
    "&::after": { content: "''", position: "absolute", top: 3, left: 3, width: 24, height: 24, borderRadius: 999, background: "#fff", transition: "left 150ms" },
    '&[aria-checked="true"]::after': { left: 23 },
  },
});
export const textButton = style({ border: 0, background: "transparent", color: vars.color.textSubtle, cursor: "pointer", padding: "16px 20px", textAlign: "left", fontSize: 14 });
export const facts = style({ marginTop: 8, display: "flex", flexWrap: "wrap", gap: 6, fontSize: 12 });
export const fact = style({ padding: "3px 8px", borderRadius: 999, background: vars.color.bgSubtle, color: vars.color.textSubtle });
export const badge = style({ padding: "3px 8px", borderRadius: 999, background: vars.color.danger, color: "#fff", fontWeight: 700 });
export const bonus = style({
  display: "block",
  marginTop: 8,
  padding: "10px 12px",
  borderRadius: 8,
  border: `1px solid ${vars.color.accent}`,
  color: vars.color.text,
  fontSize: 14,
  fontWeight: 600,
  textDecoration: "none",
});
export const title = style({ fontSize: 17 });
// The 새 선물 badge opens the gift box: the link takes the badge's colours.
export const badgeLink = style({ color: "inherit", textDecoration: "none" });
