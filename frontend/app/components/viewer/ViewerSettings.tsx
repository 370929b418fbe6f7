import type { ReactNode } from "react";
import { AUTO_SPEEDS } from "./useAutoScroll";
import type { NovelFont } from "./useReadingPrefs";
import * as s from "./viewer.css";

type Props = {
  section: string;
  width: number;
  changeWidth: (v: number) => void;
  speed: number;
  setSpeed: (v: number) => void;
  font: NovelFont;
  setFont: (f: NovelFont) => void;
  qv: boolean;
  toggleQv: () => void;
  /** the save-for-offline control, when the volume may be saved */
  offline: ReactNode;
};

/** The viewer's settings panel: strip width and auto-scroll, novel font, quick view. */
export function ViewerSettings({ section, width, changeWidth, speed, setSpeed, font, setFont, qv, toggleQv, offline }: Props) {
  return (
    <div className={s.settings} data-testid="viewer-settings">
      {section === "WT" && (
        <>
          <label className={s.label}>
            폭
            <input className={s.range} type="range" min={50} max={100} step={5} value={width} onChange={(e) => changeWidth(Number(e.target.value))} aria-label="화면 폭" />
          </label>
          <label className={s.label}>
            자동 스크롤
            <input className={s.range} type="range" min={0} max={AUTO_SPEEDS.length - 1} value={speed} onChange={(e) => setSpeed(Number(e.target.value))} aria-label="자동 스크롤 속도" />
          </label>
        </>
      )}
      {section === "EB" && (
        <>
          <label className={s.label}>
            글자 크기
            <input className={s.range} type="range" min={13} max={26} value={font.size} onChange={(e) => setFont({ ...font, size: Number(e.target.value) })} aria-label="글자 크기" />
          </label>
          <label className={s.label}>
            줄 간격
            <input className={s.range} type="range" min={1.3} max={2.4} step={0.1} value={font.line} onChange={(e) => setFont({ ...font, line: Number(e.target.value) })} aria-label="줄 간격" />
          </label>
        </>
      )}
      <label className={s.label}>
        <input type="checkbox" checked={qv} onChange={toggleQv} aria-label="바로 보기" /> 바로 보기 (구매 후 바로 열기)
      </label>
      {offline}
    </div>
  );
}
