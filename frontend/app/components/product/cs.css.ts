import { style } from "@vanilla-extract/css";
import { vars } from "~/styles/theme.css";

export const list = style({ padding: "0 16px" });
export const item = style({ borderBottom: `1px solid ${vars.color.border}` });
export const q = style({ padding: "14px 0", fontSize: 14, fontWeight: 600, cursor: "pointer", listStyle: "none" });
export const a = style({ padding: "0 0 14px", fontSize: 13, color: vars.color.textSubtle, whiteSpace: "pre-wrap" });
export const menu = style({ display: "grid", gridTemplateColumns: "1fr 1fr", gap: 10, padding: 16 });
export const menuItem = style({ padding: "18px 14px", borderRadius: 12, background: vars.color.bgSubtle, fontWeight: 700, fontSize: 14 });
export const pager = style({ display: "flex", justifyContent: "center", gap: 6, padding: 16, flexWrap: "wrap" });
export const pageLink = style({ minWidth: 32, padding: "6px 8px", textAlign: "center", borderRadius: 8, fontSize: 13, background: vars.color.bgSubtle });
export const pageCur = style({ background: vars.color.text, color: vars.color.bg });
export const form = style({ display: "flex", flexDirection: "column", gap: 10, padding: 16 });
export const input = style({ padding: "10px 12px", fontSize: 14, borderRadius: 10, border: `1px solid ${vars.color.border}`, background: vars.color.bg, color: vars.color.text, font: "inherit" });
export const button = style({ padding: "12px 0", fontSize: 15, fontWeight: 700, borderRadius: 10, border: 0, background: vars.color.accentBg, color: vars.color.accentText, cursor: "pointer" });
export const search = style({ display: "flex", gap: 8, padding: "8px 16px" });
export const text = style({ padding: 16, fontSize: 14, lineHeight: 1.7, whiteSpace: "pre-wrap", color: vars.color.textSubtle });
export const date = style({ fontSize: 11, color: vars.color.textMuted, fontWeight: 400, marginLeft: 6 });
