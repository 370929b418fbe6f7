import { style } from "@vanilla-extract/css";
import { vars } from "~/styles/theme.css";

export const box = style({ margin: "0 16px 12px", padding: 14, borderRadius: 14, border: `1px solid ${vars.color.border}`, background: vars.color.bg });
export const offer = style({ display: "flex", alignItems: "baseline", gap: 8, fontSize: 14 });
export const price = style({ fontSize: 18, fontWeight: 800 });
export const term = style({ marginLeft: "auto", fontSize: 13, color: vars.color.textSubtle });
export const buy = style({ display: "block", width: "100%", marginTop: 12 });
export const owned = style({ marginTop: 12, padding: "10px 12px", borderRadius: 10, background: vars.color.bgSubtle, fontSize: 13 });
export const dates = style({ marginTop: 6, paddingLeft: 16, listStyle: "disc", color: vars.color.textSubtle });
