import { style } from "@vanilla-extract/css";
import { vars } from "~/styles/theme.css";
import { radius, space } from "~/styles/tokens";

// The admin work editor (routes/admin/work.tsx); panels, fields and buttons
// come from analytics.css.

export const meta = style({ display: "grid", gridTemplateColumns: "max-content 1fr", gap: `${space.xs} ${space.lg}`, margin: 0, fontSize: 14 });
export const metaTerm = style({ color: vars.color.textSubtle });
export const metaValue = style({ margin: 0, color: vars.color.text, fontVariantNumeric: "tabular-nums" });
export const numberInput = style({ width: 160, textAlign: "right", fontVariantNumeric: "tabular-nums" });
export const hint = style({ flexBasis: "100%", margin: 0, color: vars.color.textSubtle, fontSize: 13 });
export const saved = style({
  border: `1px solid ${vars.color.accent}`,
  color: vars.color.text,
  borderRadius: radius.md,
  padding: space.md,
  marginBottom: space.lg,
  fontWeight: 700,
});

/** A set of radio choices (a comic's page order): no browser frame. */
export const choices = style({ border: 0, margin: 0, padding: 0, display: "flex", flexDirection: "column", gap: 6 });
export const choice = style({ display: "flex", alignItems: "center", gap: 6, fontSize: 14, color: vars.color.text });
