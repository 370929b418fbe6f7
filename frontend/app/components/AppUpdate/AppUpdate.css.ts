import { style } from "@vanilla-extract/css";
import { vars } from "~/styles/theme.css";

export const box = style({
  display: "flex",
  flexDirection: "column",
  alignItems: "center",
  gap: 12,
  margin: "40px 16px",
  padding: "32px 20px",
  borderRadius: 12,
  background: vars.color.bgSubtle,
  color: vars.color.text,
  textAlign: "center",
});

export const title = style({ margin: 0, fontSize: 18, fontWeight: 700 });

export const body = style({ margin: 0, fontSize: 14, lineHeight: 1.6, color: vars.color.textSubtle, whiteSpace: "pre-line" });

export const button = style({
  display: "inline-flex",
  alignItems: "center",
  justifyContent: "center",
  minHeight: 44,
  minWidth: 160,
  marginTop: 8,
  padding: "0 20px",
  borderRadius: 8,
  background: vars.color.accentBg,
  color: vars.color.accentText,
  fontSize: 15,
  fontWeight: 700,
  textDecoration: "none",
  selectors: {
    "&:focus-visible": { outline: `2px solid ${vars.color.text}`, outlineOffset: 2 },
  },
});
