import { style } from "@vanilla-extract/css";
import { vars } from "~/styles/theme.css";
import { zIndex } from "~/styles/tokens";

export const sheet = style({
  position: "fixed",
  left: 0,
  right: 0,
  bottom: 0,
  maxWidth: 720,
  margin: "0 auto",
  background: vars.color.bgElevated,
  borderRadius: "16px 16px 0 0",
  padding: "20px 20px calc(20px + env(safe-area-inset-bottom))",
  zIndex: zIndex.sheet,
  boxShadow: "0 -8px 30px rgba(0,0,0,.2)",
});
export const title = style({ fontSize: 18, fontWeight: 800 });
export const hint = style({ fontSize: 14, color: vars.color.textSubtle, marginTop: 4 });
export const chips = style({ display: "flex", flexWrap: "wrap", gap: 8, margin: "16px 0 20px" });
export const chip = style({
  height: 36,
  padding: "0 14px",
  borderRadius: 999,
  border: `1px solid ${vars.color.border}`,
  background: "transparent",
  cursor: "pointer",
  selectors: { '&[aria-pressed="true"]': { background: vars.color.accentBg, borderColor: vars.color.accentBg, color: vars.color.accentText, fontWeight: 700 } },
});
export const buttons = style({ display: "flex", gap: 8 });
export const button = style({ flex: 1, height: 46, borderRadius: 8, border: `1px solid ${vars.color.border}`, background: "transparent", cursor: "pointer", fontWeight: 600 });
export const primary = style({ background: vars.color.accentBg, borderColor: vars.color.accentBg, color: vars.color.accentText });
