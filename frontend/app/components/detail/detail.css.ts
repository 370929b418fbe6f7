import { style, globalStyle } from "@vanilla-extract/css";
import { recipe } from "@vanilla-extract/recipes";
import { vars } from "~/styles/theme.css";

export const hero = style({ position: "relative", background: vars.color.bgSubtle, overflow: "hidden" });
export const heroBg = style({ position: "absolute", inset: 0, width: "100%", height: "100%", objectFit: "cover", filter: "blur(18px) saturate(1.2)", opacity: 0.55, transform: "scale(1.2)" });
export const heroInner = style({ position: "relative", display: "flex", gap: 14, padding: "18px 16px 16px", alignItems: "flex-end" });
export const cover = style({ width: 108, flex: "0 0 108px", aspectRatio: "3 / 4", borderRadius: 10, overflow: "hidden", boxShadow: "0 6px 18px rgba(0,0,0,0.25)", background: vars.color.skeleton });
globalStyle(`${cover} img`, { width: "100%", height: "100%", objectFit: "cover" });
export const heroText = style({ flex: 1, minWidth: 0 });
export const title = style({ fontSize: 20, fontWeight: 800, lineHeight: 1.3, wordBreak: "keep-all" });
export const sub = style({ marginTop: 4, fontSize: 13, color: vars.color.textSubtle });
export const stats = style({ marginTop: 6, display: "flex", gap: 10, fontSize: 12, color: vars.color.textSubtle, flexWrap: "wrap" });
export const chips = style({ display: "flex", gap: 6, flexWrap: "wrap", marginTop: 8 });
export const chip = style({ padding: "2px 8px", borderRadius: 999, fontSize: 11, fontWeight: 700, background: vars.color.bg, color: vars.color.text, border: `1px solid ${vars.color.border}` });
export const benefit = style({ background: vars.color.accentBg, color: vars.color.accentText, border: 0 });
export const actions = style({ display: "flex", gap: 8, padding: "12px 16px", borderBottom: `1px solid ${vars.color.border}` });
export const action = recipe({
  base: {
  flex: 1,
  display: "flex",
  flexDirection: "column",
  alignItems: "center",
  gap: 2,
  padding: "8px 0",
  fontSize: 11,
  fontWeight: 600,
  border: 0,
  borderRadius: 10,
  background: vars.color.bgSubtle,
  cursor: "pointer",
  color: vars.color.text,
  },
  variants: { on: { true: { color: vars.color.danger }, false: {} } },
});
export const tabs = style({ marginTop: 8, display: "flex", borderBottom: `1px solid ${vars.color.border}`, position: "sticky", top: 0, zIndex: 6, background: vars.color.bg });
export const tab = recipe({
  base: { flex: 1, padding: "12px 0", border: 0, background: "transparent", fontSize: 14, fontWeight: 700, color: vars.color.textMuted, cursor: "pointer", borderBottom: "2px solid transparent" },
  variants: { on: { true: { color: vars.color.text, borderBottomColor: vars.color.text }, false: {} } },
});
export const block = style({ padding: "14px 16px" });
export const h2 = style({ fontSize: 15, fontWeight: 800, marginBottom: 8 });
export const summary = style({ fontSize: 14, lineHeight: 1.65, color: vars.color.text, whiteSpace: "pre-wrap" });
export const infoGrid = style({ display: "grid", gridTemplateColumns: "72px 1fr", gap: "6px 8px", fontSize: 13 });
export const infoKey = style({ color: vars.color.textMuted });
/** A line about the work's state (warn) or its wait-for-free coupon (info). */
export const notice = recipe({
  base: { margin: "12px 16px 0", padding: "10px 12px", borderRadius: 10, fontSize: 13, fontWeight: 600 },
  variants: { tone: { warn: { background: "rgba(229,56,59,0.12)", color: vars.color.danger }, info: { background: vars.color.bgSubtle } } },
});
export const noticeTitle = style({ fontWeight: 700, fontSize: 14 });
export const authorZzim = style({ marginRight: 6, marginBottom: 4 });
export const volHead = style({ display: "flex", alignItems: "center", gap: 8, padding: "10px 16px" });
export const volCount = style({ fontSize: 13, color: vars.color.textSubtle, marginRight: "auto" });
export const small = style({ fontSize: 12, padding: "6px 10px", borderRadius: 8, border: `1px solid ${vars.color.border}`, background: vars.color.bg, color: vars.color.text, cursor: "pointer" });
export const vols = style({ padding: "0 16px" });
/** holds a long work's "회차 더보기" under its list */
export const volMore = style({ padding: "0 16px 16px" });
export const vol = style({ display: "flex", alignItems: "center", gap: 12, padding: "12px 0", borderBottom: `1px solid ${vars.color.border}`, width: "100%", border: 0, borderBlockEnd: `1px solid ${vars.color.border}`, background: "transparent", textAlign: "left", cursor: "pointer", color: vars.color.text,
  // The volume last opened from this page (session key detailHint).
  selectors: { '&[aria-current="true"]': { boxShadow: `inset 3px 0 0 ${vars.color.accent}`, paddingLeft: 8 } },
});
export const volThumb = style({ width: 72, flex: "0 0 72px", aspectRatio: "16 / 10", borderRadius: 6, overflow: "hidden", background: vars.color.skeleton });
globalStyle(`${volThumb} img`, { width: "100%", height: "100%", objectFit: "cover" });
export const volBody = style({ flex: 1, minWidth: 0 });
export const volTitle = style({ fontSize: 14, fontWeight: 600 });
// 미리보기: an episode sold before its release.
export const earlyBadge = style({ display: "inline-block", fontSize: 10, fontWeight: 700, padding: "1px 6px", marginInlineEnd: 4, borderRadius: 4, background: vars.color.accentBg, color: vars.color.accentText, verticalAlign: "middle" });
export const volDate = style({ fontSize: 11, color: vars.color.textMuted, marginTop: 2 });
export const volState = recipe({
  base: { fontSize: 12, fontWeight: 700, whiteSpace: "nowrap" },
  variants: { kind: { free: { color: vars.color.accent }, owned: { color: vars.color.textSubtle }, priced: {} } },
});
export const bottom = style({
  position: "sticky",
  bottom: 0,
  display: "flex",
  gap: 8,
  padding: "10px 16px calc(10px + env(safe-area-inset-bottom))",
  background: vars.color.bg,
  borderTop: `1px solid ${vars.color.border}`,
  zIndex: 7,
});
export const primary = style({ flex: 2, padding: "13px 0", borderRadius: 12, border: 0, background: vars.color.accentBg, color: vars.color.accentText, fontWeight: 800, fontSize: 15, cursor: "pointer" });
export const secondary = style({ flex: 1, padding: "13px 0", borderRadius: 12, border: `1px solid ${vars.color.border}`, background: vars.color.bg, color: vars.color.text, fontWeight: 700, fontSize: 14, cursor: "pointer" });
export const sheetWrap = style({ position: "fixed", inset: 0, zIndex: 960, display: "flex", alignItems: "flex-end", justifyContent: "center", background: vars.color.dim });
export const sheet = style({ width: "100%", maxWidth: 720, background: vars.color.bgElevated, borderRadius: "18px 18px 0 0", padding: "16px 16px calc(16px + env(safe-area-inset-bottom))", maxHeight: "80vh", overflowY: "auto" });
// The same sheet standing in a page (the webtoon viewer): a card, not a drawer.
export const sheetInline = style({ borderRadius: 18, maxHeight: "none", overflowY: "visible", margin: "0 auto", textAlign: "left", color: vars.color.text });
export const sheetTitle = style({ fontSize: 17, fontWeight: 800 });
export const sheetSub = style({ fontSize: 12, color: vars.color.textSubtle, marginTop: 2 });
export const option = style({
  display: "flex",
  alignItems: "center",
  width: "100%",
  gap: 10,
  marginTop: 8,
  padding: "13px 14px",
  borderRadius: 12,
  border: `1px solid ${vars.color.border}`,
  background: vars.color.bg,
  color: vars.color.text,
  fontSize: 14,
  fontWeight: 700,
  cursor: "pointer",
  textAlign: "left",
  selectors: { "&:disabled": { opacity: 0.45, cursor: "default" } },
});
export const optionClose = style({ justifyContent: "center", fontWeight: 500 });
export const optionNote = style({ marginLeft: "auto", fontSize: 12, fontWeight: 500, color: vars.color.textSubtle });
export const undo = style({ position: "fixed", left: 12, right: 12, bottom: 80, zIndex: 990, display: "flex", alignItems: "center", gap: 10, padding: "12px 14px", borderRadius: 12, background: vars.color.toastBg, color: vars.color.toastText, fontSize: 14, maxWidth: 696, margin: "0 auto" });
export const undoBtn = style({ marginLeft: "auto", border: 0, background: "transparent", color: "#7fb0ff", fontWeight: 800, fontSize: 14, cursor: "pointer" });
export const review = style({ padding: "12px 0", borderBottom: `1px solid ${vars.color.border}` });
export const reviewHead = style({ display: "flex", gap: 6, alignItems: "center", fontSize: 12, color: vars.color.textSubtle });
export const reviewBody = style({ marginTop: 6, fontSize: 14, lineHeight: 1.55, whiteSpace: "pre-wrap", wordBreak: "break-word" });
export const reviewActions = style({ display: "flex", gap: 6, marginTop: 8 });
export const reviewCount = style({ fontWeight: 500, fontSize: 13 });
export const reviewForm = style({ marginBottom: 12 });
/** The row under the review form (place form) and the filter row above the list (place filter). */
export const reviewBar = recipe({
  base: { display: "flex", alignItems: "center", gap: 8 },
  variants: { place: { form: { padding: "6px 0" }, filter: { padding: "0 0 6px" } } },
});
export const reviewLabel = recipe({ base: { marginRight: "auto" }, variants: { size: { small: { fontSize: 12 }, medium: { fontSize: 13 } } } });
export const reviewDate = style({ marginLeft: "auto" });
export const more = style({ width: "100%", marginTop: 10 });
export const textarea = style({ width: "100%", padding: 10, borderRadius: 10, border: `1px solid ${vars.color.border}`, background: vars.color.bg, color: vars.color.text, font: "inherit", fontSize: 14 });
export const gate = style({ padding: "48px 24px", textAlign: "center" });
export const gateMark = style({ fontSize: 40 });
export const gateTitle = style({ fontWeight: 800, fontSize: 17, marginTop: 8 });
export const gateLine = style({ fontSize: 13, marginTop: 6 });
export const gateAction = recipe({ base: { marginTop: 18 }, variants: { as: { button: { width: "100%" }, link: { display: "block" } } } });
