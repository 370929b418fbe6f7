import { globalStyle } from "@vanilla-extract/css";
import { vars } from "./theme.css";
import { font } from "./tokens";

globalStyle("*, *::before, *::after", { boxSizing: "border-box" });
globalStyle("html", { WebkitTextSizeAdjust: "100%" });
globalStyle(":root[data-theme='dark']", { colorScheme: "dark" });
globalStyle(":root[data-theme='light']", { colorScheme: "light" });
globalStyle("body", {
  margin: 0,
  fontFamily: font.body,
  fontSize: 15,
  lineHeight: 1.45,
  background: vars.color.bg,
  color: vars.color.text,
  WebkitTapHighlightColor: "transparent",
});
globalStyle("body[data-scroll-lock='true']", { overflow: "hidden", touchAction: "none" });
globalStyle("a", { color: "inherit", textDecoration: "none" });
globalStyle("button", { font: "inherit", color: "inherit" });
globalStyle("img", { display: "block", maxWidth: "100%" });
globalStyle("h1, h2, h3, p, ul, ol", { margin: 0, padding: 0 });
globalStyle("ul, ol", { listStyle: "none" });
globalStyle(".visually-hidden", {
  position: "absolute",
  width: 1,
  height: 1,
  overflow: "hidden",
  clip: "rect(0 0 0 0)",
  whiteSpace: "nowrap",
});
