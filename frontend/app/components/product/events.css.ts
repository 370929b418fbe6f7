// Awards voting and the jumping pass page.
import { style } from "@vanilla-extract/css";
// After ./product.css in the cascade: these override its classes where both apply.
import "./product.css";
export const awardSection = style({ marginTop: 18 });
export const awardTitle = style({ padding: "0 16px 6px" });
export const voteButton = style({ border: 0, padding: "6px 12px", cursor: "pointer" });
export const passHero = style({ background: "linear-gradient(135deg,#1f6fff,#7a3cff)", color: "#fff", margin: "12px 16px", borderRadius: 14, padding: 18 });
export const passTitle = style({ fontSize: 20, fontWeight: 800 });
export const passSub = style({ marginTop: 4, fontSize: 13, opacity: 0.9 });
