// Blue money: the balance and ledger, the charge page's amounts.
import { style } from "@vanilla-extract/css";
import { recipe } from "@vanilla-extract/recipes";
import { vars } from "~/styles/theme.css";
// After ./product.css in the cascade: these override its classes where both apply.
import "./product.css";
import "./cs.css";
export const balance = style({ fontSize: 22, fontWeight: 800 });
export const mileage = style({ fontSize: 13 });
export const ledgerRow = style({ display: "flex", justifyContent: "space-between", padding: "12px 0", fontSize: 14 });
// The accent as text holds 4.5:1 in both themes (#1f6fff did not on white: axe, e2e topup.spec.ts).
export const ledgerAmount = recipe({ variants: { gain: { true: { color: vars.color.accent }, false: {} } } });
export const chargeNote = style({ fontSize: 14 });
export const chargeStatus = style({ fontWeight: 700 });
export const amounts = style({ display: "grid", gridTemplateColumns: "1fr 1fr 1fr", gap: 8 });
export const fineprint = style({ fontSize: 12, color: vars.color.textMuted });
export const amountOption = style({ padding: "12px 0", borderRadius: 10 });
