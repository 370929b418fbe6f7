// Writes .br and .gz siblings of every compressible file of the client build,
// so the edge serves them as they are (edge/frontdoor loads them at start)
// instead of compressing on every request or sending them raw.
//
//   node scripts/precompress.mjs [dir=build/client]
import { readdir, readFile, stat, writeFile } from "node:fs/promises";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { brotliCompressSync, constants, gzipSync } from "node:zlib";

/** Text formats worth compressing; images and fonts are compressed already. */
export const COMPRESSIBLE = new Set([".js", ".mjs", ".css", ".html", ".svg", ".json", ".txt", ".map", ".webmanifest", ".xml"]);

/** Below this a compressed answer saves less than its headers cost. */
export const MIN_BYTES = 1024;

async function* files(dir) {
  for (const e of await readdir(dir, { withFileTypes: true })) {
    const p = path.join(dir, e.name);
    if (e.isDirectory()) yield* files(p);
    else if (e.isFile()) yield p;
  }
}

/**
 * Compresses every compressible file of dir at the highest levels (this runs
 * once per build, not per request). A variant is written only when it is
 * smaller than the original, and a stale one from an earlier build is never
 * left beside a changed original (it is rewritten every run).
 * @returns {Promise<{files: number, raw: number, br: number, gz: number}>}
 */
export async function precompress(dir) {
  const sum = { files: 0, raw: 0, br: 0, gz: 0 };
  for await (const p of files(dir)) {
    if (!COMPRESSIBLE.has(path.extname(p))) continue;
    if ((await stat(p)).size < MIN_BYTES) continue;
    const body = await readFile(p);
    const br = brotliCompressSync(body, {
      params: { [constants.BROTLI_PARAM_QUALITY]: constants.BROTLI_MAX_QUALITY, [constants.BROTLI_PARAM_SIZE_HINT]: body.length },
    });
    const gz = gzipSync(body, { level: 9 });
    sum.files++;
    sum.raw += body.length;
    if (br.length < body.length) {
      await writeFile(`${p}.br`, br);
      sum.br += br.length;
    }
    if (gz.length < body.length) {
      await writeFile(`${p}.gz`, gz);
      sum.gz += gz.length;
    }
  }
  return sum;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const dir = process.argv[2] ?? "build/client";
  const s = await precompress(dir);
  const kb = (n) => (n / 1024).toFixed(1);
  console.log(`precompressed ${s.files} files of ${dir}: ${kb(s.raw)} KB raw, ${kb(s.gz)} KB gzip, ${kb(s.br)} KB brotli`);
}
