import { style } from "@vanilla-extract/css";
import { vars } from "~/styles/theme.css";

export const banners = style({
  display: "flex",
  gap: 8,
  overflowX: "auto",
  scrollSnapType: "x mandatory",
  padding: "12px 16px 0",
  scrollbarWidth: "none",
});
export const banner = style({
  flex: "0 0 88%",
  scrollSnapAlign: "center",
  borderRadius: 10,
  overflow: "hidden",
  background: vars.color.skeleton,
  aspectRatio: "2 / 1",
});
export const bannerImg = style({ width: "100%", height: "100%", objectFit: "cover" });
export const empty = style({ padding: "48px 16px", textAlign: "center", color: vars.color.textSubtle });
