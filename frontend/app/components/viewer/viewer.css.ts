import { style, globalStyle } from "@vanilla-extract/css";
import { recipe } from "@vanilla-extract/recipes";
import { vars } from "~/styles/theme.css";

export const root = style({ minHeight: "100vh", background: "#111", color: "#eee" });
export const rootNovel = style({ background: "var(--viewer-bg, #fbf8f1)", color: "var(--viewer-fg, #222)" });
globalStyle(`:root[data-theme='dark'] ${rootNovel}`, { vars: { "--viewer-bg": "#1c1c1c", "--viewer-fg": "#e6e6e6" } });
export const bar = style({
  position: "fixed",
  left: 0,
  right: 0,
  zIndex: 20,
  display: "flex",
  alignItems: "center",
  gap: 8,
  padding: "0 10px",
  height: 48,
  // nearly opaque and blurred: text scrolling under a bar must not read through it
  background: "rgba(20,20,20,0.97)",
  backdropFilter: "blur(8px)",
  color: "#fff",
  transition: "transform 200ms",
});
export const top = style({ top: 0 });
export const bottom = style({ bottom: 0, height: "auto", padding: "8px 10px calc(8px + env(safe-area-inset-bottom))", flexWrap: "wrap" });
export const hiddenTop = style({ transform: "translateY(-100%)" });
export const hiddenBottom = style({ transform: "translateY(100%)" });
export const btn = style({ border: 0, background: "rgba(255,255,255,0.12)", color: "#fff", borderRadius: 8, padding: "8px 10px", fontSize: 13, cursor: "pointer", whiteSpace: "nowrap", selectors: { "&:disabled": { opacity: 0.35 } } });
export const title = style({ flex: 1, minWidth: 0, fontSize: 14, fontWeight: 700, overflow: "hidden", textOverflow: "ellipsis", whiteSpace: "nowrap" });
export const strip = style({ margin: "0 auto", display: "flex", flexDirection: "column" });
// The box comes from the img's width/height attributes until the picture is
// in, then from the picture itself: no forced ratio that could squeeze it.
export const stripImg = style({ width: "100%", height: "auto", display: "block", background: "#222" });
// touch-action none: the page's own pinch and drag (useComicZoom) instead of the browser's.
export const pageWrap = style({ height: "100vh", position: "relative", overflow: "hidden", touchAction: "none" });
export const zoomLayer = style({ position: "absolute", inset: 0, display: "flex", alignItems: "center", justifyContent: "center", gap: 0, transformOrigin: "0 0" });
// A zoomed page is dragged, not turned: its tap areas let the pointer through.
export const tapsOff = style({ pointerEvents: "none" });
export const pageImg = style({ maxHeight: "100vh", maxWidth: "100%", objectFit: "contain", flex: "0 1 auto", minWidth: 0 });
export const tapLeft = style({ position: "absolute", left: 0, top: 0, bottom: 0, width: "30%", border: 0, background: "transparent", cursor: "w-resize" });
export const tapRight = style({ position: "absolute", right: 0, top: 0, bottom: 0, width: "30%", border: 0, background: "transparent", cursor: "e-resize" });
export const text = style({ maxWidth: 680, margin: "0 auto", padding: "64px 20px 120px", wordBreak: "keep-all", whiteSpace: "pre-wrap" });
// A processed chunk's own paragraphs and pictures (the book's markup, cleaned).
export const chunk = style({ whiteSpace: "normal" });
globalStyle(`${chunk} p`, { margin: "0 0 1.2em" });
globalStyle(`${chunk} img`, { maxWidth: "100%", height: "auto", display: "block", margin: "1em auto" });
export const end = style({ padding: "28px 16px 140px", textAlign: "center", display: "flex", flexDirection: "column", gap: 10, alignItems: "center" });
export const endBtn = style({ border: 0, borderRadius: 12, padding: "12px 20px", fontWeight: 800, fontSize: 15, background: vars.color.accentBg, color: vars.color.accentText, cursor: "pointer", minWidth: 200 });
export const noticeButton = style({ marginLeft: 6, padding: "4px 10px", border: "1px solid rgba(255,255,255,0.6)", borderRadius: 6, background: "transparent", color: "#fff", fontSize: 13, textDecoration: "none", cursor: "pointer" });
export const notice = style({ position: "fixed", left: "50%", top: "45%", transform: "translate(-50%,-50%)", padding: "14px 18px", borderRadius: 12, background: "rgba(0,0,0,0.85)", color: "#fff", fontSize: 14, zIndex: 50 });
export const range = style({ flex: 1, minWidth: 80 });
export const label = style({ fontSize: 12, display: "flex", alignItems: "center", gap: 6, flex: "1 1 45%" });

// "Save for offline" in the settings panel: its button and the storage it uses.
export const offline = style({ display: "flex", flexWrap: "wrap", alignItems: "center", gap: 8, flex: "1 1 100%", fontSize: 12 });
export const offlineNote = style({ margin: 0, flex: "1 1 100%", fontSize: 11, opacity: 0.85 });
export const endNote = style({ fontSize: 14 });
export const previewTag = style({ fontSize: 11, opacity: 0.8 });
export const stripTop = style({ paddingTop: 48 });
/** A comic page alone fills the width; two pages of a spread share it. */
export const pageFit = recipe({ variants: { spread: { true: { maxWidth: "50%" }, false: { maxWidth: "100%" } } } });
export const tapMenu = style({ position: "absolute", left: "30%", right: "30%", top: 0, bottom: 0, border: 0, background: "transparent" });
export const endTop = style({ paddingTop: 80 });
export const settings = style({ display: "flex", flexWrap: "wrap", gap: 8, width: "100%", paddingBottom: 6 });
export const pageCount = style({ flex: 1, textAlign: "center", fontSize: 12 });

// Webtoon episodes that followed the one opened (FollowOn.tsx).
export const followed = style({ borderTop: "1px solid rgba(255,255,255,0.2)" });
export const followTitle = style({ margin: 0, padding: "16px 12px 0", fontSize: 15, fontWeight: 800, textAlign: "center" });
export const followLine = style({ padding: "24px 12px 120px", textAlign: "center", fontSize: 13, color: "#ccc" });
export const followSheet = style({ padding: "8px 12px 140px" });
// Comic zoom: out, the level (back to the page's size), in.
// Above the bottom bar, over the page's right edge, while the bars are shown.
export const zoomBar = style({ position: "fixed", right: 10, bottom: 64, zIndex: 21, display: "inline-flex", gap: 4, padding: 4, borderRadius: 10, background: "rgba(20,20,20,0.97)" });
// The end panel's way back to the list: the page's own text colour on the
// page's own background, so it reads on every reader theme (dark strip,
// sepia or dark novel page), not white on a light page.
export const endLink = style({
  border: "1px solid currentColor",
  background: "transparent",
  color: "inherit",
  borderRadius: 8,
  padding: "8px 14px",
  fontSize: 13,
  textDecoration: "none",
  cursor: "pointer",
});
