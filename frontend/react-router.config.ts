import type { Config } from "@react-router/dev/config";

// SPA mode: React Router 7 framework mode with ssr:false is the successor of
// Remix's SPA mode. The build emits build/client/index.html, which the edge
// serves for every route the SPA owns.
export default {
  appDirectory: "app",
  buildDirectory: "build",
  ssr: false,
} satisfies Config;
