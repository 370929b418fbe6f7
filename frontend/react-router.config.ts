import type { Config } from "@react-router/dev/config";
import type { VitePluginPWAAPI } from "vite-plugin-pwa";

// SPA mode: React Router 7 framework mode with ssr:false is the successor of
// Remix's SPA mode. The build emits build/client/index.html, which the edge
// serves for every route the SPA owns.
//
// The v8 future flags are adopted rather than silenced: each build printed a
// warning per flag that read like an error to someone running the store for the
// first time (issue 24), and none of them changes what this SPA does — no route
// reads the loader `context` (v8_middleware), and the request/data-URL flags
// concern a server this build does not have. v8_splitRouteModules is decided
// off: with split route modules a page under Playwright's paused clock
// (tracking.spec.ts) never rendered its route, so the split stays for v8 to
// bring. scripts/futureflags.test.mjs fails when a flag is left undecided.
export default {
  appDirectory: "app",
  buildDirectory: "build",
  ssr: false,
  future: {
    v8_middleware: true,
    v8_splitRouteModules: false,
    v8_viteEnvironmentApi: true,
    v8_passThroughRequests: true,
    v8_trailingSlashAwareDataRequests: true,
  },
  // The service worker is written last, over the finished build/client
  // (index.html included in its precache): see serviceWorker in vite.config.ts.
  async buildEnd({ viteConfig }) {
    const pwa = viteConfig.plugins.find((p) => p.name === "vite-plugin-pwa") as { api?: VitePluginPWAAPI } | undefined;
    if (!pwa?.api) throw new Error("vite-plugin-pwa is not in the Vite config: no service worker");
    await pwa.api.generateSW();
  },
} satisfies Config;
