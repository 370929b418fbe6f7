import { style, styleVariants } from "@vanilla-extract/css";
import { vars } from "~/styles/theme.css";
import { space } from "~/styles/tokens";

// The review moderation screen (/admin/reviews); the page, panels, table and
// buttons are analytics.css's, shared by every admin screen.
export const views = style({ display: "flex", gap: space.md, flexWrap: "wrap", marginBottom: space.md, fontSize: 14 });
export const view = style({ color: vars.color.accent, textDecoration: "underline" });
export const viewCurrent = style({ fontWeight: 700, color: vars.color.text, textDecoration: "none" });
export const body = style({ whiteSpace: "pre-wrap", wordBreak: "break-word", maxWidth: 360 });
export const meta = style({ display: "block", color: vars.color.textSubtle, fontSize: 12, marginTop: space.xs });
export const reports = style({ margin: `${space.xs} 0 0`, paddingLeft: space.md, fontSize: 12, color: vars.color.textSubtle });
const badge = style({ display: "inline-block", fontSize: 12, padding: "1px 6px", borderRadius: 4, whiteSpace: "nowrap" });
export const state = styleVariants({
  visible: [badge, { background: vars.color.bgSubtle, color: vars.color.text }],
  "auto-hidden": [badge, { background: vars.color.bgSubtle, color: vars.color.danger }],
  hidden: [badge, { background: vars.color.danger, color: vars.color.bg }],
});
export const decide = style({ display: "flex", flexDirection: "column", gap: space.xs, minWidth: 140 });
export const buttons = style({ display: "flex", gap: space.xs, flexWrap: "wrap" });
export const pager = style({ display: "flex", alignItems: "center", gap: space.md, marginTop: space.md, fontSize: 14 });
