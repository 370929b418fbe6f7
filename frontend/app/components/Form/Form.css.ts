import { style } from "@vanilla-extract/css";
import { vars } from "~/styles/theme.css";

export const page = style({ maxWidth: 420, margin: "0 auto", padding: "24px 20px 48px" });
export const heading = style({ fontSize: 24, fontWeight: 800, margin: "12px 0 6px" });
export const sub = style({ color: vars.color.textSubtle, fontSize: 14, marginBottom: 20 });
export const notice = style({ background: vars.color.bgSubtle, borderRadius: 8, padding: "12px 14px", fontSize: 14, marginBottom: 16 });
export const form = style({ display: "flex", flexDirection: "column", gap: 12 });
export const label = style({ display: "flex", flexDirection: "column", gap: 6, fontSize: 14, fontWeight: 600 });
export const input = style({
  height: 48,
  padding: "0 14px",
  borderRadius: 8,
  border: `1px solid ${vars.color.border}`,
  background: vars.color.bg,
  color: vars.color.text,
  fontSize: 16,
  selectors: { "&:focus": { outline: `2px solid ${vars.color.accent}`, outlineOffset: -1 } },
});
export const check = style({ display: "flex", alignItems: "center", gap: 8, fontSize: 14 });
export const error = style({ color: vars.color.danger, fontSize: 13 });
export const primary = style({
  height: 50,
  border: 0,
  borderRadius: 8,
  background: vars.color.accentBg,
  color: vars.color.accentText,
  fontWeight: 700,
  fontSize: 16,
  cursor: "pointer",
  selectors: { "&:disabled": { opacity: 0.6, cursor: "default" } },
});
export const divider = style({ display: "flex", alignItems: "center", gap: 10, color: vars.color.textMuted, fontSize: 13, margin: "20px 0 12px" });
export const social = style({
  display: "flex",
  alignItems: "center",
  justifyContent: "center",
  gap: 8,
  height: 50,
  borderRadius: 8,
  fontWeight: 700,
  fontSize: 15,
  marginTop: 8,
});
export const kakao = style({ background: "#FEE500", color: "#191919" });
// Naver's green darkened until its white label reads (4.8:1; #03C75A gave 2.3:1).
export const naver = style({ background: "#00843E", color: "#ffffff" });
export const link = style({ color: vars.color.textSubtle, fontSize: 14, textDecoration: "underline", background: "none", border: 0, cursor: "pointer", padding: 0 });
export const footerRow = style({ display: "flex", justifyContent: "center", marginTop: 20 });
export const radios = style({ display: "flex", gap: 16, fontWeight: 400 });
