import { useEffect, useState } from "react";
import { http } from "~/utils/api";
import { API, downloadAuth, type DownloadAuth } from "~/utils/storeApi";
import { chunkURL, getManifest, sanitizeChunk, type Manifest } from "./media";

/** Entitlement: the writer's download-auth answers a content token for the full volume. */
export function useEntitlement(pid: string, no: number, isLogin: boolean, serviceOff: boolean, savedAuth?: DownloadAuth | null) {
  const [auth, setAuth] = useState<DownloadAuth | null>(null);
  const [authDone, setAuthDone] = useState(false);
  useEffect(() => {
    let cancel = false;
    setAuth(null);
    setAuthDone(false);
    if (!isLogin || serviceOff) {
      setAuthDone(true);
      return;
    }
    downloadAuth(pid, no)
      .catch((e) => {
        if (savedAuth) return savedAuth;
        throw e;
      })
      .then((a) => !cancel && setAuth(a))
      .catch(() => {})
      .finally(() => !cancel && setAuthDone(true));
    // The reader's last volume goes to the writer (recently viewed): any device resumes there.
    http(`${API}/users/recent`, { method: "POST", json: { pid, vol: no } }).catch(() => {});
    return () => {
      cancel = true;
    };
  }, [pid, no, isLogin, serviceOff, savedAuth]);
  return { auth, authDone };
}

/**
 * The processed content's manifest: undefined while asked, null for a
 * volume whose content is not processed yet (nothing to show but a note).
 * given: the loader's, when it already has it (undefined: ask here).
 */
export function useManifest(pid: string, no: number, hasMedia: boolean, given?: Manifest | null) {
  const [manifest, setManifest] = useState<Manifest | null | undefined>(given);
  useEffect(() => {
    if (given !== undefined) return;
    let cancel = false;
    setManifest(hasMedia ? undefined : null);
    if (hasMedia) getManifest(pid, no).then((m) => !cancel && setManifest(m));
    return () => {
      cancel = true;
    };
  }, [pid, no, hasMedia, given]);
  return manifest;
}

/** Novel text pages: processed chunks (sanitized HTML, cleaned again here). */
export function useNovelTexts(novel: boolean, ready: boolean, count: number, manifest: Manifest | null | undefined, token: string | null) {
  const [texts, setTexts] = useState<string[]>([]);
  useEffect(() => {
    if (!novel || !ready || !manifest) return;
    let cancel = false;
    Promise.all(Array.from({ length: count }, (_, i) => fetch(chunkURL(manifest, i + 1, token)).then((r) => (r.ok ? r.text() : ""))))
      .then((t) => !cancel && setTexts(t.map(sanitizeChunk)))
      .catch(() => {});
    return () => {
      cancel = true;
    };
  }, [novel, ready, count, manifest, token]);
  return texts;
}
