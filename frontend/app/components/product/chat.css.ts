// The customer-service chat.
import { style } from "@vanilla-extract/css";
import { recipe } from "@vanilla-extract/recipes";
// After ./cs.css in the cascade: these override its classes where both apply.
import "./cs.css";
export const chat = style({ display: "flex", flexDirection: "column", gap: 8, padding: 16 });
export const thread = style({ display: "flex", flexDirection: "column", gap: 8 });
export const retry = style({ alignSelf: "flex-start", padding: "0 16px" });
/** A chat bubble: the member's on the right in the accent, the service's on the left; pending while no answer came. */
export const bubble = recipe({
  base: { maxWidth: "78%", padding: "9px 12px", borderRadius: 14, fontSize: 14, whiteSpace: "pre-wrap" },
  variants: {
    from: { member: { alignSelf: "flex-end", background: "#1f6fff", color: "#fff" }, service: { alignSelf: "flex-start", background: "rgba(127,127,127,0.14)" } },
    pending: { true: { opacity: 0.6 }, false: {} },
  },
});
