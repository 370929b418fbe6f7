import { style } from "@vanilla-extract/css";
import { vars } from "~/styles/theme.css";
import { layout } from "~/styles/tokens";

export const banner = style({
  height: layout.topBannerHeight,
  display: "flex",
  alignItems: "center",
  gap: 12,
  padding: "0 8px 0 16px",
  background: vars.color.bgSubtle,
  borderBottom: `1px solid ${vars.color.border}`,
});
export const icon = style({ width: 44, height: 44, borderRadius: 10, flex: "0 0 auto" });
export const text = style({ flex: 1, fontSize: 13, lineHeight: 1.4 });
export const strong = style({ display: "block", fontWeight: 700, fontSize: 14 });
export const open = style({
  height: 32,
  padding: "0 14px",
  border: 0,
  borderRadius: 999,
  background: vars.color.accentBg,
  color: vars.color.accentText,
  fontWeight: 700,
  cursor: "pointer",
});
export const close = style({ width: 32, height: 32, border: 0, background: "transparent", fontSize: 20, cursor: "pointer", color: vars.color.textSubtle });
