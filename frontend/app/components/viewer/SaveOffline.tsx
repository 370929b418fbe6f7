// "Save for offline" (오프라인 저장) of the volume on screen, for a member who
// owns or rents it: saved, its pages open without a network until the rental
// ends or the member logs out. The storage it takes is shown beside it.
import { useEffect, useState } from "react";
import { formatBytes, findSaved, expiryOf, removeSaved, SAVE_FAILED, SaveError, saveVolume, saveWidth, storageUse, type StorageUse } from "~/offline/savedVolumes";
import type { SavedVolume } from "~/offline/savedIndex";
import { useShell } from "~/shell/ShellProvider";
import type { Detail, DownloadAuth } from "~/utils/storeApi";
import type { Manifest } from "./media";
import * as s from "./viewer.css";

export const SAVED_TEXT = "오프라인 저장되었습니다.";
export const REMOVED_TEXT = "오프라인 저장을 삭제했습니다.";

const day = (ms: number) => new Date(ms).toLocaleDateString("ko-KR", { timeZone: "Asia/Seoul", month: "long", day: "numeric", hour: "2-digit", minute: "2-digit" });

export function SaveOffline({ detail, no, manifest, auth, uid }: { detail: Detail; no: number; manifest: Manifest; auth: DownloadAuth; uid: string }) {
  const shell = useShell();
  const pid = detail.prodInfo.pid;
  const [saved, setSaved] = useState<SavedVolume | undefined>(() => findSaved(uid, pid, no));
  const [busy, setBusy] = useState<string | null>(null);
  const [use, setUse] = useState<StorageUse | null>(null);
  useEffect(() => {
    let live = true;
    void storageUse(uid).then((u) => live && setUse(u));
    return () => {
      live = false;
    };
  }, [uid, saved]);
  if (!("caches" in window) || expiryOf(auth) === undefined) return null;

  const save = async () => {
    setBusy("저장 중…");
    try {
      const v = await saveVolume({ detail, manifest, auth, uid, no, width: saveWidth(window.innerWidth, window.devicePixelRatio || 1) }, { onProgress: (d, n) => setBusy(`저장 중… ${d}/${n}`) });
      setSaved(v);
      shell.toast(SAVED_TEXT);
    } catch (e) {
      shell.toast(e instanceof SaveError ? e.message : SAVE_FAILED);
    } finally {
      setBusy(null);
    }
  };
  const remove = async () => {
    if (!saved) return;
    await removeSaved(saved);
    setSaved(undefined);
    shell.toast(REMOVED_TEXT);
  };

  return (
    <div className={s.offline} data-testid="offline-save" data-saved={saved ? "true" : "false"}>
      {saved ? (
        <>
          <span>오프라인 저장됨{saved.expiresAt !== null ? ` · ${day(saved.expiresAt)}까지` : ""}</span>
          <button type="button" className={s.btn} onClick={remove}>
            저장 삭제
          </button>
        </>
      ) : (
        <button type="button" className={s.btn} onClick={save} disabled={busy !== null} aria-live="polite">
          {busy ?? "오프라인 저장"}
        </button>
      )}
      {use && (
        <p className={s.offlineNote} data-testid="offline-usage">
          저장한 회차 {use.count}개 · {formatBytes(use.bytes)} / {formatBytes(use.limit)}
          {use.quota ? ` · 이 사이트의 기기 저장 공간 ${formatBytes(use.usage ?? 0)} / ${formatBytes(use.quota)} 사용` : ""}
        </p>
      )}
    </div>
  );
}
