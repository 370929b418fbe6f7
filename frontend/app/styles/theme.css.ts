import { createGlobalTheme, createThemeContract } from "@vanilla-extract/css";
import { dark, light } from "./tokens";

// One contract; light and dark fill it. The active theme is the html element's
// data-theme attribute ("light" | "dark"), set before first paint (see root.tsx).
export const vars = createThemeContract({
  color: {
    bg: null,
    bgSubtle: null,
    bgElevated: null,
    text: null,
    textSubtle: null,
    textMuted: null,
    border: null,
    accent: null,
    accentBg: null,
    accentText: null,
    danger: null,
    badgeUp: null,
    badgeNew: null,
    dim: null,
    toastBg: null,
    toastText: null,
    skeleton: null,
  },
});

createGlobalTheme(":root, :root[data-theme='light']", vars, light);
createGlobalTheme(":root[data-theme='dark']", vars, dark);
