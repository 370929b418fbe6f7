import { style } from "@vanilla-extract/css";
import { recipe } from "@vanilla-extract/recipes";
import { vars } from "~/styles/theme.css";

export const panel = style({ width: "100%", maxWidth: 640, textAlign: "left", background: vars.color.bg, color: vars.color.text, borderRadius: 12, padding: 16, marginTop: 12 });
export const head = style({ display: "flex", alignItems: "center", justifyContent: "space-between", gap: 8, margin: "0 0 10px" });
export const h2 = style({ fontSize: 16, fontWeight: 800, margin: 0 });
export const heart = style({ border: `1px solid ${vars.color.border}`, borderRadius: 999, padding: "6px 14px", background: "transparent", color: vars.color.text, fontSize: 14, cursor: "pointer" });
export const note = style({ background: vars.color.bgSubtle, borderRadius: 8, padding: 10, margin: "0 0 10px", fontSize: 13, whiteSpace: "pre-wrap" });
export const tabs = style({ display: "flex", gap: 6, margin: "10px 0" });
export const tab = recipe({
  base: { border: `1px solid ${vars.color.border}`, borderRadius: 999, padding: "6px 12px", background: "transparent", color: vars.color.text, fontSize: 13, cursor: "pointer" },
  variants: { on: { true: { background: vars.color.accentBg, color: vars.color.accentText, borderColor: vars.color.accentBg }, false: {} } },
});
export const form = style({ display: "flex", flexDirection: "column", gap: 6 });
export const textarea = style({ width: "100%", boxSizing: "border-box", borderRadius: 8, border: `1px solid ${vars.color.border}`, padding: 8, fontSize: 14, background: vars.color.bgElevated, color: vars.color.text });
export const bar = style({ display: "flex", alignItems: "center", gap: 8, justifyContent: "flex-end", fontSize: 12 });
export const small = style({ border: `1px solid ${vars.color.border}`, borderRadius: 6, padding: "4px 8px", background: "transparent", color: vars.color.text, fontSize: 12, cursor: "pointer", selectors: { "&:disabled": { opacity: 0.5 } } });
export const list = style({ listStyle: "none", padding: 0, margin: 0 });
export const item = style({ borderTop: `1px solid ${vars.color.border}`, padding: "10px 0" });
export const replies = style({ listStyle: "none", margin: "6px 0 0 16px", padding: 0 });
export const meta = style({ display: "flex", gap: 6, alignItems: "center", fontSize: 12, color: vars.color.textSubtle, margin: 0 });
export const chip = style({ fontSize: 11, borderRadius: 4, padding: "1px 5px", background: vars.color.accentBg, color: vars.color.accentText });
export const body = style({ margin: "4px 0", fontSize: 14, whiteSpace: "pre-wrap", overflowWrap: "anywhere" });
// A spoiler stays blurred until the reader asks for it.
export const blurred = style({ filter: "blur(5px)", userSelect: "none" });
export const reveal = style({ border: 0, background: "transparent", color: vars.color.accent, fontSize: 12, cursor: "pointer", padding: 0 });
export const actions = style({ display: "flex", gap: 6, flexWrap: "wrap" });
export const empty = style({ fontSize: 13, color: vars.color.textMuted });
export const error = style({ fontSize: 12, color: vars.color.danger, margin: 0 });
