import type { Pending } from "./useUndo";
import * as s from "./detail.css";

/** The bar that offers to undo an unlock during its window. */
export function UndoBar({ pending }: { pending: Pending }) {
  return (
    <div className={s.undo} role="status" data-testid="undo-bar">
      <span>{pending.label}</span>
      <button type="button" className={s.undoBtn} onClick={pending.cancel}>
        되돌리기
      </button>
    </div>
  );
}
