import { style } from "@vanilla-extract/css";
import { vars } from "~/styles/theme.css";
import { space } from "~/styles/tokens";

export const files = style({ listStyle: "none", padding: 0, margin: `${space.md} 0 0`, display: "flex", flexDirection: "column", gap: space.xs });
export const file = style({ display: "flex", alignItems: "center", gap: space.sm, fontSize: 13 });
export const fileName = style({ flex: "0 1 220px", minWidth: 0, overflow: "hidden", textOverflow: "ellipsis", whiteSpace: "nowrap" });
export const progress = style({ flex: 1, height: 10, accentColor: vars.color.accent });
export const jobState = style({ marginTop: space.md, fontWeight: 700, fontSize: 14 });
export const strip = style({ display: "flex", flexDirection: "column", width: 360, maxWidth: "100%", marginTop: space.sm, background: vars.color.bgSubtle });
export const stripImg = style({ width: "100%", height: "auto", display: "block" });
