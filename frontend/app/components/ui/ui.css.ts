import { keyframes, style } from "@vanilla-extract/css";
import { vars } from "~/styles/theme.css";
import { zIndex } from "~/styles/tokens";
import { LOADER, POPUP } from "~/shell/timing";

export const dim = style({ position: "fixed", inset: 0, background: vars.color.dim, zIndex: zIndex.dim });

export const floating = style({
  position: "fixed",
  left: "50%",
  bottom: "calc(24px + env(safe-area-inset-bottom))",
  transform: "translateX(-50%)",
  maxWidth: "calc(100% - 32px)",
  padding: "12px 18px",
  borderRadius: 10,
  background: vars.color.toastBg,
  color: vars.color.toastText,
  fontSize: 14,
  zIndex: zIndex.toast,
  textAlign: "center",
  wordBreak: "keep-all",
});

const pulse = keyframes({
  "0%": { transform: "scale(0)", opacity: 1 },
  "100%": { transform: "scale(1)", opacity: 0 },
});
export const loaderWrap = style({ position: "fixed", inset: 0, display: "grid", placeItems: "center", zIndex: LOADER.zIndex });
export const loader = style({
  width: LOADER.size,
  height: LOADER.size,
  borderRadius: "50%",
  background: vars.color.accent,
  animation: `${pulse} ${LOADER.speedMs}ms ease-in-out infinite`,
});

export const bar = style({
  position: "fixed",
  top: 0,
  left: 0,
  height: 3,
  background: vars.color.accent,
  zIndex: zIndex.loadingBar,
  transition: "width 200ms ease-out, opacity 200ms",
});

export const popupWrap = style({ position: "fixed", inset: 0, display: "grid", placeItems: "center", zIndex: zIndex.popup, padding: 20 });
export const popup = style({
  position: "relative",
  width: "100%",
  maxWidth: POPUP.maxWidth,
  background: vars.color.bgElevated,
  color: vars.color.text,
  borderRadius: 14,
  overflow: "hidden",
  boxShadow: "0 10px 40px rgba(0,0,0,.25)",
});
export const popupTitle = style({ fontSize: 17, fontWeight: 700, padding: "20px 20px 0", textAlign: "center" });
export const popupContent = style({ padding: "16px 20px 20px", fontSize: 15, textAlign: "center", overflowY: "auto", whiteSpace: "pre-line", wordBreak: "keep-all" });
export const popupButtons = style({ display: "flex", borderTop: `1px solid ${vars.color.border}` });
export const popupButton = style({
  flex: 1,
  height: 50,
  border: 0,
  background: "transparent",
  fontSize: 15,
  cursor: "pointer",
  selectors: { "& + &": { borderLeft: `1px solid ${vars.color.border}` } },
});
export const popupPrimary = style({ color: vars.color.accent, fontWeight: 700 });

export const snack = style({
  position: "fixed",
  left: 16,
  right: 16,
  bottom: "calc(16px + env(safe-area-inset-bottom))",
  maxWidth: 480,
  margin: "0 auto",
  padding: "14px 16px",
  borderRadius: 10,
  background: vars.color.toastBg,
  color: vars.color.toastText,
  zIndex: zIndex.toast,
  fontSize: 14,
  display: "flex",
  gap: 8,
  alignItems: "center",
});
export const cashback = style({ background: "#ffb800", color: "#1c1c1c", fontWeight: 700 });

// A scrolling box whose scrollbar shows while it scrolls (data-scrolling) and
// hides SCROLLBAR_HIDE_MS after (useFadingScrollbar).
export const fadingScrollbar = style({
  scrollbarWidth: "thin",
  scrollbarColor: "transparent transparent",
  selectors: { "&[data-scrolling]": { scrollbarColor: `${vars.color.textMuted} transparent` } },
});

const shimmer = keyframes({ "0%": { opacity: 1 }, "50%": { opacity: 0.55 }, "100%": { opacity: 1 } });
export const skeleton = style({ display: "flex", flexDirection: "column", gap: 10, padding: "16px" });
export const skeletonRow = style({
  display: "block",
  height: 16,
  borderRadius: 6,
  background: vars.color.skeleton,
  animation: `${shimmer} 1.2s ease-in-out infinite`,
  selectors: { "&:nth-child(3n+2)": { width: "80%" }, "&:nth-child(3n)": { width: "60%" } },
});
