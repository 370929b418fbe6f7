import { style } from "@vanilla-extract/css";
import { vars } from "~/styles/theme.css";

// The author page's follow bar and the inbox's rows, on the theme contract.
export const followBar = style({ display: "flex", alignItems: "center", gap: 12, padding: "4px 16px 12px", flexWrap: "wrap" });
export const followNote = style({ flex: 1, minWidth: 160, margin: 0, fontSize: 13, color: vars.color.textSubtle });
export const follow = style({
  minHeight: 40,
  padding: "8px 16px",
  borderRadius: 999,
  border: `1px solid ${vars.color.accentBg}`,
  background: vars.color.accentBg,
  color: vars.color.accentText,
  fontSize: 14,
  fontWeight: 800,
  cursor: "pointer",
  textDecoration: "none",
  selectors: { "&[aria-pressed='true']": { background: vars.color.bg, color: vars.color.text, borderColor: vars.color.border } },
});

export const inboxHead = style({ display: "flex", alignItems: "center", gap: 8, padding: "0 16px 10px" });
export const unread = style({ marginRight: "auto", fontSize: 13, color: vars.color.textSubtle });
export const item = style({ borderBottom: `1px solid ${vars.color.border}` });
export const itemLink = style({ display: "block", padding: "12px 0", color: vars.color.text, textDecoration: "none" });
export const itemTitle = style({ fontSize: 15, fontWeight: 500 });
export const itemTitleUnread = style({ fontWeight: 800 });
export const itemText = style({ marginTop: 2, fontSize: 13, color: vars.color.textSubtle });
export const dot = style({
  display: "inline-block",
  width: 8,
  height: 8,
  borderRadius: 999,
  marginRight: 6,
  verticalAlign: "middle",
  background: vars.color.danger,
});
export const pager = style({ display: "flex", justifyContent: "space-between", padding: "12px 16px" });
