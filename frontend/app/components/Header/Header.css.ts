import { globalStyle, style } from "@vanilla-extract/css";
import { vars } from "~/styles/theme.css";
import { layout, zIndex } from "~/styles/tokens";

// The seed's header_one height (row, tabs and border) is the token's; the
// section header takes it too, so a page starts at the same place under
// either (and under the edge's drawing of the first screen, edge/server/pages.go).
export const header = style({
  position: "sticky",
  top: 0,
  zIndex: zIndex.header,
  background: vars.color.bg,
  borderBottom: `1px solid ${vars.color.border}`,
  height: layout.headerOneHeight,
  boxSizing: "border-box",
  display: "flex",
  flexDirection: "column",
});
export const row = style({ display: "flex", alignItems: "center", flex: `0 0 ${layout.headerRowHeight}px`, height: layout.headerRowHeight, padding: "0 8px 0 16px", gap: 4 });
export const logo = style({ fontSize: 19, fontWeight: 800, letterSpacing: -0.5, color: vars.color.accent, marginRight: "auto" });
export const iconButton = style({
  width: 40,
  height: 40,
  border: 0,
  borderRadius: 999,
  background: "transparent",
  display: "grid",
  placeItems: "center",
  cursor: "pointer",
  color: vars.color.text,
});
export const tabs = style({ display: "flex", gap: 2, padding: "0 8px", overflowX: "auto", scrollbarWidth: "none" });
export const tab = style({
  flex: "0 0 auto",
  padding: "10px 10px 9px",
  fontSize: 15,
  fontWeight: 600,
  color: vars.color.textSubtle,
  borderBottom: "2px solid transparent",
  selectors: { '&[aria-current="page"]': { color: vars.color.text, borderBottomColor: vars.color.text } },
});
globalStyle(`${header} > nav`, { flex: 1, alignItems: "stretch" });
globalStyle(`${header} > nav > a`, { display: "flex", alignItems: "center" });
export const sectionTitle = style({ fontSize: 18, fontWeight: 800, marginRight: "auto" });
