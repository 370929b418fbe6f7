// The undo window before an unlock is committed: the writer has no cancel for
// purchases or coupon uses, so an accidental tap is undone before it is sent.
import { useState } from "react";
import { useShell } from "~/shell/ShellProvider";
import { UNDO_MS } from "./unlock";

export type Pending = { label: string; cancel: () => void };

export function useUndo() {
  const shell = useShell();
  const [pending, setPending] = useState<Pending | null>(null);
  /** withUndo commits after UNDO_MS unless the reader undoes it meanwhile; it resolves either way. */
  const withUndo = (label: string, commit: () => Promise<void>) =>
    new Promise<void>((resolve) => {
      const t = setTimeout(async () => {
        setPending(null);
        await commit();
        resolve();
      }, UNDO_MS);
      setPending({
        label,
        cancel: () => {
          clearTimeout(t);
          setPending(null);
          shell.toast("취소되었습니다.", 1500);
          resolve();
        },
      });
    });
  return { pending, withUndo };
}
