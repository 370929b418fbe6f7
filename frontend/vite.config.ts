import path from "node:path";
import { reactRouter } from "@react-router/dev/vite";
import { vanillaExtractPlugin } from "@vanilla-extract/vite-plugin";
import { defineConfig, type Rollup } from "vite";
import { VitePWA } from "vite-plugin-pwa";
import { light } from "./app/styles/tokens";

// The API lives on the same origin as the SPA (the edge serves both). In dev,
// Vite forwards the API prefixes to an edge (EDGE_URL, default :8080).
const edge = process.env.EDGE_URL ?? "http://127.0.0.1:8080";
// /admin/api only: other /admin paths are SPA screens (/admin/analytics).
const apiPrefixes = ["/home/api", "/protocol", "/api", "/iam", "/img", "/content", "/admin/api", "/analytics/api", "/pc", "/logout/"];

const app = path.resolve(import.meta.dirname, "app");

/**
 * The modules every first screen runs (the root route, the default layout,
 * the home, and all they import) go into one chunk, "shell": as some thirty
 * small chunks they cost 6.8 KB more gzip than together (each compressed
 * alone, each importing the others by hashed name, each listed in the route
 * manifest), on the home's 130 KB budget (issue 23; README "What the phone
 * loads"). The three route modules keep a file of their own that only
 * re-exports from it (the router loads routes by file); React, React DOM and
 * React Router are left as Rollup splits them (forcing them in gains nothing
 * measurable).
 */
const SHELL_ROUTES = ["root.tsx", "layouts/default.tsx", "routes/home.tsx"].map((f) => path.join(app, f));
const FRAMEWORK = /\/node_modules\/(react|react-dom|scheduler|react-router)\//;

function shellChunk(): Rollup.GetManualChunk {
  let shell: Set<string> | undefined;
  return (id, { getModuleInfo }) => {
    if (!shell) {
      shell = new Set();
      const todo = [...SHELL_ROUTES];
      const seen = new Set<string>();
      while (todo.length) {
        const m = todo.pop()!;
        if (seen.has(m)) continue;
        seen.add(m);
        if (FRAMEWORK.test(m)) continue;
        shell.add(m);
        todo.push(...(getModuleInfo(m)?.importedIds ?? []));
      }
    }
    return shell.has(id) ? "shell" : undefined;
  };
}

// React Router publishes a production build (dev warnings compiled out) that
// its package exports never select; the store's build takes it (0.6 KB gzip).
const rr = path.resolve(import.meta.dirname, "node_modules/react-router/dist/production");

/**
 * serviceWorker is vite-plugin-pwa without its own moment to write /sw.js.
 * It would write it when each of React Router's builds closes (client, then
 * the SPA's server build), before React Router writes index.html (the SPA's
 * prerender, last): the precache would miss the page itself. React Router's
 * buildEnd (react-router.config.ts) asks the plugin's API instead, once the
 * whole build/client is there.
 */
function serviceWorker(options: Parameters<typeof VitePWA>[0]) {
  return VitePWA(options).map((p) => (p.name === "vite-plugin-pwa:build" ? { ...p, closeBundle: undefined } : p));
}

export default defineConfig(({ command }) => ({
  plugins: [
    vanillaExtractPlugin(),
    reactRouter(),
    // The service worker (app/sw/sw.ts) is ours, not generated: Workbox
    // modules do the precache and the routes, vite-plugin-pwa bundles it to
    // /sw.js with the build's precache list and writes the web app manifest.
    // Registration is our own few lines (app/sw/register.ts), after load.
    ...serviceWorker({
      strategies: "injectManifest",
      outDir: "build/client",
      srcDir: "app/sw",
      filename: "sw.ts",
      injectRegister: false,
      registerType: "prompt",
      manifestFilename: "manifest.webmanifest",
      manifest: {
        id: "/",
        name: "블루페이지",
        short_name: "블루페이지",
        description: "웹툰 · 만화 · 소설",
        lang: "ko",
        dir: "ltr",
        start_url: "/",
        scope: "/",
        display: "standalone",
        background_color: light.color.bg,
        theme_color: light.color.bg,
        icons: [
          { src: "/icons/app/icon-192.png", sizes: "192x192", type: "image/png", purpose: "any" },
          { src: "/icons/app/icon-512.png", sizes: "512x512", type: "image/png", purpose: "any" },
          { src: "/icons/app/maskable-192.png", sizes: "192x192", type: "image/png", purpose: "maskable" },
          { src: "/icons/app/maskable-512.png", sizes: "512x512", type: "image/png", purpose: "maskable" },
        ],
      },
      injectManifest: {
        // The app shell: the SPA's page, every route's code and styles, the
        // icons. Not the admin screens' chart library, not the demo covers.
        // (The manifest and its icons the plugin adds itself.)
        globPatterns: ["**/*.{js,css,html,svg,woff2}"],
        globIgnores: ["sw.js", "covers/**", "assets/chartjs-*", "assets/analytics-*", "assets/AdminToken-*"],
        maximumFileSizeToCacheInBytes: 400 * 1024,
      },
      devOptions: { enabled: false },
    }),
  ],
  resolve: {
    alias: [
      { find: "~", replacement: app },
      ...(command === "build"
        ? [
            { find: /^react-router$/, replacement: `${rr}/index.mjs` },
            { find: /^react-router\/dom$/, replacement: `${rr}/dom-export.mjs` },
          ]
        : []),
    ],
  },
  server: {
    proxy: Object.fromEntries(apiPrefixes.map((p) => [p, { target: edge }])),
  },
  // terser: 4 KB gzip less than esbuild's minifier on the home's scripts, most of it
  // React DOM's. SOURCEMAP=1 maps the bytes back to modules (README, "What the phone loads").
  build: {
    target: "es2022",
    sourcemap: !!process.env.SOURCEMAP,
    minify: "terser",
    terserOptions: { compress: { passes: 2 }, format: { comments: false } },
  },
  environments: { client: { build: { rollupOptions: { output: { manualChunks: shellChunk() } } } } },
}));
