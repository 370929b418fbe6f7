// The automatic top-up settings screen: cards, the two kinds, notices.
import { style } from "@vanilla-extract/css";
import { recipe } from "@vanilla-extract/recipes";
import { vars } from "~/styles/theme.css";

export const section = style({ display: "grid", gap: 10, padding: "16px 0", borderBottom: "1px solid rgba(128,128,128,0.2)" });
export const h2 = style({ fontSize: 16, fontWeight: 800, margin: 0 });
export const card = style({ display: "flex", justifyContent: "space-between", alignItems: "center", fontSize: 14, gap: 8 });
export const cardNumber = style({ fontVariantNumeric: "tabular-nums", letterSpacing: 1 });
export const kinds = style({ display: "grid", gridTemplateColumns: "1fr 1fr", gap: 8 });
export const field = style({ display: "grid", gap: 4, fontSize: 14 });
export const input = style({ padding: "10px 12px", borderRadius: 8, border: "1px solid rgba(128,128,128,0.4)", fontSize: 15 });
export const notice = recipe({
  base: { padding: "10px 12px", borderRadius: 8, fontSize: 13, display: "grid", gap: 2 },
  variants: {
    kind: {
      topup_receipt: { background: "rgba(31,111,255,0.08)" },
      topup_paused: { background: "rgba(255,80,80,0.10)" },
    },
  },
});
export const paused = style({ color: vars.color.danger, fontSize: 13 });
// Theme colours: "gray" and "#d33" fell short of 4.5:1 (axe, e2e topup.spec.ts).
export const fineprint = style({ fontSize: 12, color: vars.color.textMuted });
