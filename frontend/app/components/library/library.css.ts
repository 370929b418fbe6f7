import { style } from "@vanilla-extract/css";
import { vars } from "~/styles/theme.css";

// 이어보기 on the home page: a row of covers that scrolls sideways.
export const continueRow = style({
  display: "flex",
  gap: 10,
  overflowX: "auto",
  padding: "0 16px",
  listStyle: "none",
  margin: 0,
  scrollbarWidth: "none",
});
export const continueItem = style({ flex: "0 0 104px" });
export const continueLink = style({ display: "block", color: vars.color.text, textDecoration: "none" });
export const continueNext = style({ marginTop: 2, fontSize: 12, fontWeight: 700, color: vars.color.accent });
export const heading = style({ fontSize: 17, fontWeight: 800, padding: "16px 16px 10px", margin: 0 });

export const next = style({ marginTop: 4, fontSize: 12, fontWeight: 700, color: vars.color.accent });
export const timeLeft = style({ marginTop: 2, fontSize: 12, fontWeight: 700, color: vars.color.danger });
export const rowLinks = style({ display: "flex", flexDirection: "column", gap: 6, alignItems: "flex-end", flex: "0 0 auto" });
export const action = style({
  padding: "6px 10px",
  borderRadius: 6,
  border: `1px solid ${vars.color.border}`,
  background: vars.color.bg,
  color: vars.color.text,
  fontSize: 12,
  fontWeight: 700,
  textDecoration: "none",
  cursor: "pointer",
});
export const actionPrimary = style({ background: vars.color.accentBg, color: vars.color.accentText, borderColor: vars.color.accentBg });
