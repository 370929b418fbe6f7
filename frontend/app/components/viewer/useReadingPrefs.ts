import { useState } from "react";
import { getLocal, LOCAL, quickView, setLocal, setQuickView } from "~/utils/prefs";

export type NovelFont = { size: number; line: number };

/** The reader's viewer settings, kept on this device: strip width, novel font, quick view. */
export function useReadingPrefs() {
  const [qv, setQv] = useState(quickView);
  const [width, setWidthState] = useState(() => Number(getLocal(LOCAL.webtoonWidth)) || 100);
  const [font, setFontState] = useState<NovelFont>(() => {
    try {
      return JSON.parse(getLocal(LOCAL.novelFont) ?? "null") ?? { size: 17, line: 1.8 };
    } catch {
      return { size: 17, line: 1.8 };
    }
  });
  const setWidth = (v: number) => {
    setWidthState(v);
    setLocal(LOCAL.webtoonWidth, String(v));
  };
  const setFont = (f: NovelFont) => {
    setFontState(f);
    setLocal(LOCAL.novelFont, JSON.stringify(f));
  };
  const toggleQv = () => {
    setQv(!qv);
    setQuickView(!qv);
  };
  return { qv, toggleQv, width, setWidth, font, setFont };
}
