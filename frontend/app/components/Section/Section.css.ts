import { style } from "@vanilla-extract/css";
import { vars } from "~/styles/theme.css";

export const section = style({ marginTop: 24 });
export const head = style({ display: "flex", alignItems: "baseline", justifyContent: "space-between", padding: "0 16px", marginBottom: 10 });
export const title = style({ fontSize: 18, fontWeight: 800 });
export const more = style({ fontSize: 13, color: vars.color.textSubtle });
