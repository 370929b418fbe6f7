// Processed content (issue 16): the edge's manifest of a volume's current
// version, the URLs of its pages and chunks, and the novel chunks made safe
// to insert. Pure functions; the Viewer renders with them.

import { SAVED_MARK } from "~/sw/routes";
import { http } from "~/utils/api";
import { API } from "~/utils/storeApi";

export type ManifestPage = { w: number; h: number; widths: number[] };

/** The answer of GET /home/api/v1/products/<pid>/volumes/<no>/media. */
export type Manifest = {
  pid: string;
  no: number;
  ver: string;
  /** page n is base/n (format by Accept, width by ?w=), chunk n is base/n.html */
  base: string;
  kind: "images" | "text";
  previewPages: number;
  formats: string[];
  pages: ManifestPage[];
  chunks: number;
  /**
   * The page's own mark, not the edge's: this version is saved for offline
   * reading, so its addresses carry SAVED_MARK and the service worker
   * answers them from the saved copy.
   */
  saved?: boolean;
};

/** getManifest answers the volume's manifest, or null while it has no processed content. */
export const getManifest = (pid: string, no: number, signal?: AbortSignal) =>
  http<Manifest>(`${API}/products/${encodeURIComponent(pid)}/volumes/${no}/media`, { signal }).catch(() => null);

/** total is how many pages or chunks the version has. */
export const total = (m: Manifest) => (m.kind === "text" ? m.chunks : m.pages.length);

/** needsToken: pages past the preview take the content token, every width alike; a saved version's pages the mark. */
const tokenQuery = (m: Manifest, n: number, token: string | null | undefined) =>
  [n > m.previewPages && token ? `t=${encodeURIComponent(token)}` : "", m.saved ? `${SAVED_MARK}=1` : ""].filter(Boolean).join("&");

/**
 * pageURL is page n (from 1) at width w: the edge answers the best format the
 * browser's Accept takes (AVIF, then WebP, then JPEG), so one URL per width
 * serves every browser and a preload hits the same cache entry as the img.
 */
export function pageURL(m: Manifest, n: number, w: number, token?: string | null): string {
  const t = tokenQuery(m, n, token);
  return `${m.base}/${n}?w=${w}${t ? `&${t}` : ""}`;
}

/**
 * LADDER is the widths every srcset names, whatever widths a page has: the
 * edge answers ?w= with the narrowest width at least that wide (the widest
 * when none is), so a narrow page's "1080w" is its widest. One ladder for
 * every page means the viewer can ask for the first strip from the detail's
 * mediaBase alone, before the manifest arrives, with the very URL its img
 * will use (one download, not two).
 */
export const LADDER = [360, 720, 1080];

/** ladderSrcSet lists page n of a version's base at every width of the ladder. */
export function ladderSrcSet(base: string, n: number, t = ""): string {
  return LADDER.map((w) => `${base}/${n}?w=${w}${t ? `&${t}` : ""} ${w}w`).join(", ");
}

/** srcSet lists page n at every width, for the browser to pick by sizes and pixel ratio. */
export function srcSet(m: Manifest, n: number, token?: string | null): string {
  return ladderSrcSet(m.base, n, tokenQuery(m, n, token));
}

/**
 * preloadFirstStrip starts the download of a volume's first strip as soon as
 * the detail names its processed version, while the viewer's own calls
 * (download-auth, manifest) are still out: the strip is on the critical path
 * of a reader's first sight, and it is a preview page, public.
 */
export function preloadFirstStrip(base: string, sizes: string) {
  const img = new Image();
  img.sizes = sizes;
  img.srcset = ladderSrcSet(base, 1);
  return img;
}

/** fallbackWidth is the src of browsers without srcset: the width closest above 720 CSS px. */
export function fallbackWidth(p: ManifestPage): number {
  return p.widths.find((w) => w >= 720) ?? p.widths[p.widths.length - 1] ?? p.w;
}

/** chunkURL is text chunk n (from 1). */
export function chunkURL(m: Manifest, n: number, token?: string | null): string {
  const t = tokenQuery(m, n, token);
  return `${m.base}/${n}.html${t ? `?${t}` : ""}`;
}

/**
 * eagerUntil is the last page (from 1) to load now: the pages on screen and
 * the next few, so the strip ahead of the reader is in before it scrolls
 * there; the rest wait (loading="lazy").
 */
export const eagerUntil = (current: number, count: number, ahead = 3) => Math.min(count, Math.max(1, current) + ahead);

// The chunk's own markup that reading needs: text structure, emphasis,
// ruby, pictures. Everything else (script, style, iframe, form, svg, math,
// links that navigate) is dropped with its content or unwrapped.
const KEEP = new Set(["p", "br", "hr", "em", "strong", "i", "b", "u", "s", "sub", "sup", "small", "span", "div", "blockquote", "h1", "h2", "h3", "h4", "h5", "h6", "ul", "ol", "li", "ruby", "rt", "rp", "figure", "figcaption", "img"]);
const DROP = new Set(["script", "style", "iframe", "object", "embed", "frame", "frameset", "form", "input", "button", "textarea", "select", "svg", "math", "template", "link", "meta", "base", "noscript", "audio", "video", "source", "canvas"]);

/**
 * sanitizeChunk keeps a chunk's reading markup only. The writer sanitized it
 * already (bluemonday); this second pass in the browser means a store or
 * cache that was tampered with still cannot run script here: no event
 * handlers, no style or class from the book, pictures only from our own
 * origin's media paths.
 */
export function sanitizeChunk(html: string): string {
  const doc = new DOMParser().parseFromString(`<body>${html}</body>`, "text/html");
  const clean = (el: Element) => {
    for (const child of Array.from(el.children)) {
      const tag = child.tagName.toLowerCase();
      if (DROP.has(tag)) {
        child.remove();
        continue;
      }
      clean(child);
      if (!KEEP.has(tag)) {
        child.replaceWith(...Array.from(child.childNodes));
        continue;
      }
      for (const a of Array.from(child.attributes)) {
        const keep = tag === "img" ? a.name === "src" || a.name === "alt" || a.name === "width" || a.name === "height" : false;
        if (!keep) child.removeAttribute(a.name);
      }
      if (tag === "img") {
        const src = child.getAttribute("src") ?? "";
        if (!/^\/(media|content)\/[A-Za-z0-9_./-]+(\?[A-Za-z0-9_=&.%-]*)?$/.test(src) || src.includes("..")) child.remove();
        else child.setAttribute("loading", "lazy");
      }
    }
  };
  clean(doc.body);
  return doc.body.innerHTML;
}

/**
 * volumeThumb is the small picture of a volume in the detail's list: the
 * first page of its processed version when that page is public (a preview
 * page; the list has no token), else the work's cover.
 */
export function volumeThumb(v: { mediaBase?: string; previewPages: number }, cover: string): string {
  return v.mediaBase && v.previewPages > 0 ? `${v.mediaBase}/1?w=360` : cover;
}
