// Header by path prefix (seed §2).
export type HeaderKind = "none" | "section" | "main";

const NO_HEADER = ["/jumpingpass", "/mypages/recent/edit"];
const SECTION_HEADER = ["/novel", "/comic", "/webtoon"];

const under = (path: string, prefix: string) => path === prefix || path.startsWith(prefix + "/");

export function headerKind(pathname: string): HeaderKind {
  if (NO_HEADER.some((p) => under(pathname, p))) return "none";
  if (SECTION_HEADER.some((p) => under(pathname, p))) return "section";
  return "main";
}

export type SectionKey = "webtoon" | "comic" | "novel";
export function sectionOf(pathname: string): SectionKey | null {
  for (const s of ["webtoon", "comic", "novel"] as const) if (under(pathname, "/" + s)) return s;
  return null;
}

export const SECTION_LABEL: Record<SectionKey, string> = { webtoon: "웹툰", comic: "만화", novel: "소설" };

/** Top-level tabs (seed §2): series, romance, fanmu, bl, others. */
export const TOP_TABS = [
  { key: "series", label: "시리즈" },
  { key: "romance", label: "로맨스" },
  { key: "fanmu", label: "판타지/무협" },
  { key: "bl", label: "BL" },
  { key: "others", label: "일반" },
] as const;

/** Section code of a list item (WT/CM/EB) to its path segment. */
export function sectionPath(section: string): SectionKey {
  switch (section) {
    case "WT":
      return "webtoon";
    case "CM":
      return "comic";
    default:
      return "novel";
  }
}
