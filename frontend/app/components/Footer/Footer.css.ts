import { style } from "@vanilla-extract/css";
import { vars } from "~/styles/theme.css";

export const footer = style({
  marginTop: 40,
  padding: "24px 16px 40px",
  background: vars.color.bgSubtle,
  color: vars.color.textSubtle,
  fontSize: 12,
  lineHeight: 1.7,
});
export const links = style({ display: "flex", flexWrap: "wrap", gap: "4px 14px", marginBottom: 12, fontWeight: 600 });
