import { style } from "@vanilla-extract/css";
import { vars } from "~/styles/theme.css";
import { zIndex } from "~/styles/tokens";

export const bar = style({
  position: "fixed",
  left: 12,
  right: 12,
  bottom: "calc(12px + env(safe-area-inset-bottom, 0px))",
  zIndex: zIndex.toast,
  display: "flex",
  alignItems: "center",
  gap: 8,
  maxWidth: 560,
  margin: "0 auto",
  padding: "10px 12px 10px 16px",
  borderRadius: 10,
  background: vars.color.toastBg,
  color: vars.color.toastText,
  fontSize: 14,
  boxShadow: "0 4px 16px rgba(0, 0, 0, 0.2)",
});

export const text = style({ flex: 1, lineHeight: 1.4 });

const button = style({
  minHeight: 36,
  padding: "0 12px",
  border: 0,
  borderRadius: 8,
  fontSize: 14,
  fontWeight: 700,
  cursor: "pointer",
  selectors: { "&:focus-visible": { outline: `2px solid ${vars.color.toastText}`, outlineOffset: 2 } },
});

export const apply = style([button, { background: vars.color.accent, color: vars.color.accentText }]);
export const later = style([button, { background: "transparent", color: vars.color.toastText }]);
