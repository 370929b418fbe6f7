// Parts of single store pages (keyword tabs, recently viewed, ranking chips,
// set and cashback intros, the logout line), kept out of product.css, which
// the home's first load carries.
import { style } from "@vanilla-extract/css";
// After ./product.css in the cascade: these override its classes where both apply.
import "./product.css";
export const tabsWrap = style({ flexWrap: "wrap", position: "static" });
export const controlsTop = style({ paddingTop: 10 });
export const chipButton = style({ border: 0, cursor: "pointer", padding: "5px 10px" });
export const intro = style({ padding: "12px 16px 0", fontSize: 13 });
export const underline = style({ textDecoration: "underline" });
export const removePicked = style({ color: "#e5383b" });
export const rowPick = style({ cursor: "pointer" });
export const statusLine = style({ padding: 48, textAlign: "center" });
