import { readFile } from "node:fs/promises";
import { createRequire } from "node:module";
import path from "node:path";
import { describe, expect, it } from "vitest";
import config from "../react-router.config.ts";

// Every build printed "⚠️ Future Flag Warning" once per React Router v8 flag
// left unset, which a first-time user took for errors (issue 24). The flags the
// installed @react-router/dev warns about are read from its own warning code,
// so an upgrade that adds one fails here instead of bringing the noise back.
describe("react-router.config", () => {
  it("decides every future flag the installed React Router warns about", async () => {
    const require = createRequire(import.meta.url);
    const dev = path.dirname(require.resolve("@react-router/dev/package.json"));
    const src = await readFile(path.join(dev, "dist", "vite.js"), "utf8");
    const warned = [...src.matchAll(/future\.(\w+) === void 0\)\s*\{\s*logFutureFlagWarning\(/g)].map((m) => m[1]);
    expect(warned.length).toBeGreaterThan(0);
    const future = config.future ?? {};
    expect(warned.filter((flag) => future[flag] === undefined)).toEqual([]);
  });
});
