import { mkdtemp, readFile, readdir, rm, writeFile, mkdir } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { brotliDecompressSync, gunzipSync } from "node:zlib";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { MIN_BYTES, precompress } from "./precompress.mjs";

describe("precompress", () => {
  let dir = "";
  beforeEach(async () => {
    dir = await mkdtemp(path.join(tmpdir(), "precompress-"));
  });
  afterEach(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it("writes .br and .gz siblings that decompress to the original, for text formats only", async () => {
    const js = "export const works = [" + Array.from({ length: 400 }, (_, i) => `"웹툰 ${i}"`).join(",") + "];\n";
    await mkdir(path.join(dir, "assets"));
    await writeFile(path.join(dir, "assets", "home-abc123.js"), js);
    await writeFile(path.join(dir, "index.html"), "<!doctype html>" + "<p>스토어</p>".repeat(200));
    await writeFile(path.join(dir, "cover.png"), Buffer.alloc(4096, 7));

    const sum = await precompress(dir);

    expect(sum.files).toBe(2);
    const js1 = path.join(dir, "assets", "home-abc123.js");
    expect(brotliDecompressSync(await readFile(js1 + ".br")).toString()).toBe(js);
    expect(gunzipSync(await readFile(js1 + ".gz")).toString()).toBe(js);
    expect((await readFile(js1 + ".br")).length).toBeLessThan(Buffer.byteLength(js));
    expect(await readdir(dir)).not.toContain("cover.png.br");
    expect(await readdir(dir)).toContain("index.html.gz");
  });

  it("leaves small files alone and rewrites variants of a changed file", async () => {
    await writeFile(path.join(dir, "tiny.css"), "a{}".repeat(MIN_BYTES / 4));
    const p = path.join(dir, "app.css");
    await writeFile(p, ".a{color:red}".repeat(200));
    await precompress(dir);
    expect(await readdir(dir)).not.toContain("tiny.css.br");

    const changed = ".b{color:blue}".repeat(300);
    await writeFile(p, changed);
    await precompress(dir);
    expect(brotliDecompressSync(await readFile(p + ".br")).toString()).toBe(changed);
    expect(gunzipSync(await readFile(p + ".gz")).toString()).toBe(changed);
  });
});
