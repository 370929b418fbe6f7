// Token values in plain TypeScript; theme.css.ts fills the contract with them.
// Text colours hold WCAG AA (4.5:1) on bg, bgSubtle and bgElevated; accentText,
// and the badges' white, on accentBg and the badge colours (e2e a11y.spec.ts,
// axe-core in both themes). accent is the accent as text and lines on the page;
// accentBg the accent as a surface under accentText: in the dark theme one
// blue cannot be both (#5c95ff reads on #1c1c1c but white on it does not).

export const light = {
  color: {
    bg: "#ffffff",
    bgSubtle: "#f5f5f7",
    bgElevated: "#ffffff",
    text: "#1c1c1c",
    textSubtle: "#6b6b70",
    textMuted: "#6e6e73",
    border: "#e6e6ea",
    accent: "#1a66f0",
    accentBg: "#1a66f0",
    accentText: "#ffffff",
    danger: "#c92a2a",
    badgeUp: "#e02424",
    badgeNew: "#1a66f0",
    dim: "rgba(0, 0, 0, 0.55)",
    toastBg: "rgba(28, 28, 28, 0.92)",
    toastText: "#ffffff",
    skeleton: "#ececf0",
  },
} as const;

export const dark = {
  color: {
    bg: "#1c1c1c",
    bgSubtle: "#262628",
    bgElevated: "#2c2c2f",
    text: "#f2f2f4",
    textSubtle: "#b0b0b6",
    textMuted: "#939399",
    border: "#3a3a3e",
    accent: "#5c95ff",
    accentBg: "#2a66e0",
    accentText: "#ffffff",
    danger: "#ff6b6e",
    badgeUp: "#e02424",
    badgeNew: "#2a66e0",
    dim: "rgba(0, 0, 0, 0.7)",
    toastBg: "rgba(242, 242, 244, 0.94)",
    toastText: "#1c1c1c",
    skeleton: "#333336",
  },
} as const;

// Browser theme colours (seed §4).
export const themeColor = { light: "#ffffff", dark: "#1c1c1c" } as const;

export const space = { xs: "4px", sm: "8px", md: "12px", lg: "16px", xl: "24px" } as const;
export const radius = { sm: "4px", md: "8px", lg: "14px", pill: "999px" } as const;
export const font = {
  body: '-apple-system, BlinkMacSystemFont, "Apple SD Gothic Neo", "Noto Sans KR", "Malgun Gothic", system-ui, sans-serif',
} as const;

// Layout constants (seed §9).
export const layout = {
  topBannerHeight: 72,
  /** the seed's header_one: the main navigation header (its row and the top-level tabs); the section header is as tall */
  headerOneHeight: 100,
  headerRowHeight: 52,
  maxWidth: 720,
  gridMinItem: 96,
} as const;

// z-order of the shell's overlays; the loader's 993 is fixed by the seed.
export const zIndex = {
  header: 100,
  sidebar: 900,
  dim: 950,
  sheet: 960,
  popup: 980,
  toast: 990,
  loader: 993,
  loadingBar: 995,
} as const;
