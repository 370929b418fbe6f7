import { createGlobalTheme, createThemeContract } from "@vanilla-extract/css";

// Series colours of the admin charts, for both themes. The charts draw on a
// canvas, which cannot use CSS variables, so Chart.tsx reads these variables'
// values from the document whenever the theme changes. They live here, not in
// the app's contract, because only the admin screen draws charts.
export const chartVars = createThemeContract({
  series1: null,
  series2: null,
  series3: null,
  series4: null,
  grid: null,
  marker: null,
});

const light = { series1: "#1f6fff", series2: "#12a37a", series3: "#e5383b", series4: "#f59f00", grid: "#e6e6ea", marker: "rgba(229, 56, 59, 0.16)" };
const dark = { series1: "#5c95ff", series2: "#38c79b", series3: "#ff6b6e", series4: "#ffc043", grid: "#3a3a3e", marker: "rgba(255, 107, 110, 0.22)" };

createGlobalTheme(":root, :root[data-theme='light']", chartVars, light);
createGlobalTheme(":root[data-theme='dark']", chartVars, dark);
