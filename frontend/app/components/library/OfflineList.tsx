import { useState } from "react";
import { Link, useRevalidator } from "react-router";
import { nextText, type OfflineRow } from "~/offline/savedShelf";
import { formatBytes, removeSaved } from "~/offline/savedVolumes";
import { sectionPath } from "~/utils/layout";
import * as p from "~/components/product/product.css";
import * as s from "./library.css";

const day = (ms: number) => new Date(ms).toLocaleDateString("ko-KR");

/**
 * 오프라인 저장: each work saved on this device with its saved episodes, the
 * one to read next (it opens from the saved copy without a network) and a
 * remove action that deletes the work's saved copies from the device.
 */
export function OfflineList({ items, empty }: { items: OfflineRow[]; empty: string }) {
  const revalidator = useRevalidator();
  const [said, setSaid] = useState("");
  const remove = async (w: OfflineRow) => {
    for (const v of w.vols) await removeSaved(v);
    setSaid(`${w.title} 오프라인 저장을 삭제했습니다.`);
    await revalidator.revalidate();
  };
  return (
    <>
      <p className="visually-hidden" role="status" aria-live="polite">
        {said}
      </p>
      {items.length === 0 && <p className={p.empty}>{empty}</p>}
      <ul className={p.rows} aria-label="오프라인 저장" hidden={items.length === 0}>
        {items.map((w) => {
          const detail = w.section ? `/${sectionPath(w.section)}/detail/${encodeURIComponent(w.pid)}` : null;
          const next = nextText(w, w.unit);
          return (
            <li key={w.pid} className={p.row} data-testid="library-item">
              <div className={p.rowThumb} aria-hidden="true">
                <div className={p.thumbWrap}>{w.thumbUrl && <img className={p.thumb} src={w.thumbUrl} alt="" width={64} height={85} loading="lazy" />}</div>
              </div>
              <div className={p.rowBody}>
                <p className={p.title}>{detail ? <Link to={detail}>{w.title}</Link> : w.title}</p>
                <p className={p.meta} data-testid="offline-vols">
                  {`저장한 회차 ${w.vols.map((v) => `${v.no}${w.unit}`).join(", ")} · ${formatBytes(w.vols.reduce((n, v) => n + v.bytes, 0))}`}
                </p>
                <p className={p.meta}>
                  {w.lastReadAt ? `${day(w.lastReadAt)} 읽음 · ` : ""}
                  {`${day(w.savedAt)} 저장`}
                </p>
              </div>
              <div className={s.rowLinks}>
                {w.next ? (
                  <Link to={`/viewer?pid=${encodeURIComponent(w.pid)}&no=${w.next.no}`} className={`${s.action} ${s.actionPrimary}`} aria-label={`${w.title} ${next}`}>
                    {next}
                  </Link>
                ) : (
                  <span className={p.meta}>{next}</span>
                )}
                <button type="button" className={s.action} aria-label={`${w.title} 오프라인 저장 삭제`} onClick={() => void remove(w)}>
                  삭제
                </button>
              </div>
            </li>
          );
        })}
      </ul>
    </>
  );
}
