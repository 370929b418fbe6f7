import { describe, expect, it } from "vitest";
import { chunkURL, eagerUntil, fallbackWidth, ladderSrcSet, pageURL, sanitizeChunk, srcSet, total, volumeThumb, type Manifest } from "./media";

const m: Manifest = {
  pid: "wt1",
  no: 3,
  ver: "00ab",
  base: "/content/wt1/3/00ab",
  kind: "images",
  previewPages: 2,
  formats: ["avif", "webp", "jpeg"],
  pages: [
    { w: 1080, h: 1600, widths: [360, 720, 1080] },
    { w: 1080, h: 1600, widths: [360, 720, 1080] },
    { w: 640, h: 900, widths: [360, 640] },
  ],
  chunks: 0,
};

describe("page URLs", () => {
  it("preview pages carry no token, later pages carry it at every width", () => {
    expect(pageURL(m, 2, 720, "tok")).toBe("/content/wt1/3/00ab/2?w=720");
    expect(pageURL(m, 3, 360, "1.a+b")).toBe("/content/wt1/3/00ab/3?w=360&t=1.a%2Bb");
    expect(srcSet(m, 3, "tok")).toBe("/content/wt1/3/00ab/3?w=360&t=tok 360w, /content/wt1/3/00ab/3?w=720&t=tok 720w, /content/wt1/3/00ab/3?w=1080&t=tok 1080w");
    expect(srcSet(m, 1, "tok")).toBe("/content/wt1/3/00ab/1?w=360 360w, /content/wt1/3/00ab/1?w=720 720w, /content/wt1/3/00ab/1?w=1080 1080w");
    // the first strip asked from the detail's base alone is the img's own srcset
    expect(ladderSrcSet(m.base, 1)).toBe(srcSet(m, 1, "tok"));
    expect(pageURL(m, 3, 360, null)).toBe("/content/wt1/3/00ab/3?w=360");
  });
  it("a version saved for offline reading marks every page and chunk for the service worker", () => {
    const saved = { ...m, saved: true };
    expect(pageURL(saved, 1, 720, "tok")).toBe("/content/wt1/3/00ab/1?w=720&sfo=1");
    expect(pageURL(saved, 3, 720, "tok")).toBe("/content/wt1/3/00ab/3?w=720&t=tok&sfo=1");
    expect(srcSet(saved, 3, "tok").split(", ").every((u) => u.includes("&sfo=1 "))).toBe(true);
    expect(chunkURL({ ...saved, kind: "text", pages: [], chunks: 2 }, 1, "tok")).toBe("/content/wt1/3/00ab/1.html?sfo=1");
  });
  it("the fallback src is the first width of at least 720, else the widest", () => {
    expect(fallbackWidth(m.pages[0])).toBe(720);
    expect(fallbackWidth(m.pages[2])).toBe(640);
  });
  it("chunks and counts", () => {
    const t: Manifest = { ...m, kind: "text", pages: [], chunks: 4 };
    expect(total(m)).toBe(3);
    expect(total(t)).toBe(4);
    expect(chunkURL(t, 1, "tok")).toBe("/content/wt1/3/00ab/1.html");
    expect(chunkURL(t, 4, "tok")).toBe("/content/wt1/3/00ab/4.html?t=tok");
  });
  it("loads the pages on screen and the next three", () => {
    expect(eagerUntil(0, 60)).toBe(4);
    expect(eagerUntil(10, 60)).toBe(13);
    expect(eagerUntil(59, 60)).toBe(60);
    expect(eagerUntil(1, 2)).toBe(2);
  });
});

describe("sanitizeChunk", () => {
  it("keeps reading markup and our own pictures", () => {
    const out = sanitizeChunk('<h2>1장</h2><p>그는 <em>천천히</em> 걸었다.<br/>끝.</p><p><img src="/media/abc" alt="삽화"/></p><ruby>漢<rt>한</rt></ruby>');
    expect(out).toBe('<h2>1장</h2><p>그는 <em>천천히</em> 걸었다.<br>끝.</p><p><img src="/media/abc" alt="삽화" loading="lazy"></p><ruby>漢<rt>한</rt></ruby>');
  });
  it("drops script, handlers, styles, frames, forms and foreign pictures", () => {
    const out = sanitizeChunk(
      '<p onclick="alert(1)" style="color:red" class="x">가</p><script>alert(1)</script><img src="https://evil.example/x.png"><img src="javascript:alert(1)">' +
        '<img src="/media/../../etc/passwd"><iframe src="/"></iframe><a href="javascript:alert(1)">나</a><svg><script>alert(1)</script></svg><form><input></form><style>p{}</style>' +
        '<img src="/media/ok" onerror="alert(1)">',
    );
    expect(out).toBe('<p>가</p>나<img src="/media/ok" loading="lazy">');
    expect(out).not.toMatch(/script|onclick|onerror|style|evil|javascript|iframe|svg|form/);
  });
});

describe("volumeThumb", () => {
  it("the processed first page when it is public, else the work's cover", () => {
    expect(volumeThumb({ mediaBase: "/content/wt1/3/00ab", previewPages: 2 }, "/media/c0")).toBe("/content/wt1/3/00ab/1?w=360");
    expect(volumeThumb({ mediaBase: "/content/wt1/3/00ab", previewPages: 0 }, "/media/c0")).toBe("/media/c0");
    expect(volumeThumb({ previewPages: 2 }, "/media/c0")).toBe("/media/c0");
  });
});
