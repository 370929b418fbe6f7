import { style } from "@vanilla-extract/css";
import { vars } from "~/styles/theme.css";

export const bar = style({
  display: "flex",
  alignItems: "center",
  gap: 4,
  height: 48,
  padding: "0 8px",
  borderBottom: `1px solid ${vars.color.border}`,
  background: vars.color.bg,
});
export const back = style({
  width: 40,
  height: 40,
  border: 0,
  background: "transparent",
  cursor: "pointer",
  display: "grid",
  placeItems: "center",
  borderRadius: 999,
});
export const title = style({ fontSize: 17, fontWeight: 700, overflow: "hidden", textOverflow: "ellipsis", whiteSpace: "nowrap" });
