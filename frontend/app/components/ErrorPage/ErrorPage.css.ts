import { style } from "@vanilla-extract/css";
import { vars } from "~/styles/theme.css";

export const page = style({
  minHeight: "60vh",
  display: "flex",
  flexDirection: "column",
  alignItems: "center",
  justifyContent: "center",
  textAlign: "center",
  padding: "48px 24px",
  gap: 10,
});
export const icon = style({ color: vars.color.textMuted, marginBottom: 8 });
export const code = style({ fontSize: 40, fontWeight: 800, color: vars.color.textMuted, letterSpacing: 1 });
export const title = style({ fontSize: 19, fontWeight: 700 });
export const desc = style({ fontSize: 14, color: vars.color.textSubtle, maxWidth: 300, wordBreak: "keep-all" });
export const detail = style({ fontSize: 12, color: vars.color.textMuted });
export const actions = style({ display: "flex", gap: 8, marginTop: 16 });
export const button = style({
  minWidth: 120,
  height: 44,
  padding: "0 20px",
  borderRadius: 8,
  border: `1px solid ${vars.color.border}`,
  background: vars.color.bg,
  cursor: "pointer",
  fontWeight: 600,
  display: "inline-flex",
  alignItems: "center",
  justifyContent: "center",
});
export const primary = style({ background: vars.color.accentBg, color: vars.color.accentText, borderColor: vars.color.accentBg });
/** A page's own way on under the error block's links (the login error's "다시 로그인하기"). */
export const again = style({ marginTop: 4 });
export const cs = style({ marginTop: 12, fontSize: 13, color: vars.color.textSubtle, textDecoration: "underline" });
