import path from "node:path";
import { reactRouter } from "@react-router/dev/vite";
import { vanillaExtractPlugin } from "@vanilla-extract/vite-plugin";
import { defineConfig } from "vite";

// The API lives on the same origin as the SPA (the edge serves both). In dev,
// Vite forwards the API prefixes to an edge (EDGE_URL, default :8080).
const edge = process.env.EDGE_URL ?? "http://127.0.0.1:8080";
// /admin/api only: other /admin paths are SPA screens (/admin/analytics).
const apiPrefixes = ["/home/api", "/protocol", "/api", "/iam", "/img", "/content", "/admin/api", "/analytics/api", "/pc", "/logout/"];

export default defineConfig({
  plugins: [vanillaExtractPlugin(), reactRouter()],
  resolve: { alias: { "~": path.resolve(import.meta.dirname, "app") } },
  server: {
    proxy: Object.fromEntries(apiPrefixes.map((p) => [p, { target: edge }])),
  },
  build: { target: "es2022" },
});
