// The member's zzim of this work and of its authors: loaded on arrival,
// toggled by the heart buttons with the seed's toasts (§7).
import { useEffect, useState } from "react";
import { useShell } from "~/shell/ShellProvider";
import { ZZIM_TOAST_MS } from "~/shell/timing";
import { addZzim, ZZIM_ADDED, ZZIM_REMOVED, listZzim, removeZzim } from "~/utils/zzim";
import { currentDevice } from "~/utils/device";

type Member = { isLogin: boolean; uid: string; adultLevel: number };

export function useZzim(pid: string, section: string, user: Member) {
  const shell = useShell();
  const [zzimIdx, setZzimIdx] = useState<number | null>(null);
  const [authorZzim, setAuthorZzim] = useState<Map<string, number>>(new Map());
  const { uid } = user;

  useEffect(() => {
    if (!user.isLogin || !uid) return;
    const who = { adultLevel: user.adultLevel, channel: currentDevice().channel };
    listZzim(uid, "prod", who).then((m) => m && setZzimIdx(m.get(pid) ?? null));
    listZzim(uid, "author", who).then((m) => m && setAuthorZzim(m));
  }, [user.isLogin, uid, pid, user.adultLevel]);

  // Member-only actions start with the shell's one check, shell.requireMember
  // (a guest in the app goes to native login).
  const toggleWork = async () => {
    if (!shell.requireMember()) return;
    if (zzimIdx) {
      if (await removeZzim(uid, "prod", zzimIdx)) {
        setZzimIdx(null);
        shell.snack(ZZIM_REMOVED, ZZIM_TOAST_MS);
      }
    } else {
      const idx = await addZzim(uid, "prod", pid, section);
      if (idx) {
        setZzimIdx(idx);
        shell.snack(ZZIM_ADDED, ZZIM_TOAST_MS);
      }
    }
  };
  const toggleAuthor = async (authorId: number) => {
    if (!shell.requireMember()) return;
    const key = String(authorId);
    const idx = authorZzim.get(key);
    if (idx) {
      if (await removeZzim(uid, "author", idx)) {
        setAuthorZzim((m) => {
          const n = new Map(m);
          n.delete(key);
          return n;
        });
        shell.snack(ZZIM_REMOVED, ZZIM_TOAST_MS);
      }
    } else {
      const n = await addZzim(uid, "author", key);
      if (n) {
        setAuthorZzim((m) => new Map(m).set(key, n));
        shell.snack(ZZIM_ADDED, ZZIM_TOAST_MS);
      }
    }
  };
  return { zzimOn: !!zzimIdx, authorZzim, toggleWork, toggleAuthor };
}
