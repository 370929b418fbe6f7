// Login and adult-verification extras: the divider, full-width button, bare fieldset.
import { style } from "@vanilla-extract/css";
// After ./Form.css in the cascade: these override its classes where both apply.
import "./Form.css";
export const rule = style({ flex: 1, borderTop: "1px solid currentColor", opacity: 0.3 });
export const fullButton = style({ width: "100%", marginTop: 12 });
export const bareFieldset = style({ border: 0, padding: 0, margin: 0 });
export const legend = style({ marginBottom: 6 });
