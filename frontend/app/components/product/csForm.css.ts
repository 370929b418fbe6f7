// Customer-service forms and links: search field, wide buttons, centred links.
import { style } from "@vanilla-extract/css";
// After ./cs.css in the cascade: these override its classes where both apply.
import "./cs.css";
export const qnaListLink = style({ textAlign: "center", fontSize: 13 });
export const centered = style({ textAlign: "center" });
export const grow = style({ flex: 1 });
export const buttonWide = style({ padding: "0 16px" });
