import { style } from "@vanilla-extract/css";
import { vars } from "~/styles/theme.css";

export const form = style({ display: "flex", gap: 8, padding: "12px 16px", alignItems: "center" });
export const input = style({
  flex: 1,
  minWidth: 0,
  fontSize: 16, // 16px or more: iOS does not zoom into the field
  padding: "10px 12px",
  borderRadius: 10,
  border: `1px solid ${vars.color.border}`,
  background: vars.color.bgSubtle,
  color: vars.color.text,
  selectors: { "&::placeholder": { color: vars.color.textSubtle } },
});
export const section = style({ padding: "4px 16px 12px" });
export const head = style({ display: "flex", alignItems: "center", justifyContent: "space-between", gap: 8, margin: "8px 0" });
export const heading = style({ fontSize: 15, fontWeight: 700, color: vars.color.text });
export const textButton = style({
  border: 0,
  background: "none",
  padding: "6px 4px",
  fontSize: 13,
  color: vars.color.textSubtle,
  cursor: "pointer",
  minHeight: 32,
});
export const chips = style({ display: "flex", flexWrap: "wrap", gap: 8, listStyle: "none", padding: 0, margin: 0 });
export const chip = style({
  display: "inline-flex",
  alignItems: "center",
  borderRadius: 999,
  background: vars.color.bgSubtle,
  color: vars.color.text,
  fontSize: 13,
});
export const chipQuery = style({ border: 0, background: "none", color: "inherit", padding: "6px 4px 6px 12px", cursor: "pointer", fontSize: 13, minHeight: 32 });
export const chipRemove = style({ border: 0, background: "none", color: vars.color.textSubtle, padding: "6px 10px 6px 6px", cursor: "pointer", fontSize: 13, minHeight: 32, minWidth: 32 });
export const status = style({ padding: "40px 16px", textAlign: "center", color: vars.color.textSubtle, fontSize: 14 });
export const keywordLink = style({ color: vars.color.text, fontSize: 13, textDecoration: "underline", whiteSpace: "nowrap" });
// Two columns of five, as Korean stores show their 인기 검색어, in rank order down each column.
export const popular = style({
  display: "grid",
  gridTemplateColumns: "1fr 1fr",
  gridTemplateRows: "repeat(5, auto)",
  gridAutoFlow: "column",
  columnGap: 12,
  listStyle: "none",
  padding: 0,
  margin: 0,
});
export const popularItem = style({ minWidth: 0 });
export const popularButton = style({
  display: "flex",
  alignItems: "center",
  gap: 10,
  width: "100%",
  minHeight: 40,
  border: 0,
  background: "none",
  padding: "6px 0",
  color: vars.color.text,
  fontSize: 14,
  textAlign: "left",
  cursor: "pointer",
});
export const popularRank = style({ flex: "none", width: 18, textAlign: "center", fontWeight: 700, color: vars.color.textSubtle });
export const popularRankTop = style({ color: vars.color.accent });
export const popularKeyword = style({ minWidth: 0, overflow: "hidden", textOverflow: "ellipsis", whiteSpace: "nowrap" });
