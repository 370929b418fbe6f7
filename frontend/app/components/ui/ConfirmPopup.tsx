import { useEffect, useId, useRef } from "react";
import { useSafeArea } from "~/shell/safeArea";
import { popupMaxHeight } from "~/shell/timing";
import { useFadingScrollbar } from "./fadingScrollbar";
import * as s from "./ui.css";

export type ConfirmOptions = {
  title?: string;
  content: React.ReactNode;
  /** left button; omit for the one-button variant */
  leftLabel?: string;
  rightLabel?: string;
  /** whether a click on the dim closes the popup (as the left button) */
  dimClose?: boolean;
};

/** The confirm popup (seed §2): title, scrolling content, left and right buttons, one-button variant, dim click. */
export function ConfirmPopup({ opts, onResult }: { opts: ConfirmOptions; onResult: (ok: boolean) => void }) {
  const titleId = useId();
  const contentId = useId();
  const right = useRef<HTMLButtonElement>(null);
  useEffect(() => {
    right.current?.focus();
    const onKey = (e: KeyboardEvent) => e.key === "Escape" && onResult(false);
    window.addEventListener("keydown", onKey);
    return () => window.removeEventListener("keydown", onKey);
  }, [onResult]);
  // The window less the insets the notch and the home indicator take.
  const safe = useSafeArea();
  const maxHeight = popupMaxHeight((typeof window === "undefined" ? 800 : window.innerHeight) - safe.top - safe.bottom, !!opts.title);
  const scrollbar = useFadingScrollbar();
  return (
    <div className={s.popupWrap} onClick={() => opts.dimClose !== false && onResult(false)} data-testid="confirm-popup">
      <div
        className={s.popup}
        role="alertdialog"
        aria-modal="true"
        aria-labelledby={opts.title ? titleId : contentId}
        aria-describedby={opts.title ? contentId : undefined}
        onClick={(e) => e.stopPropagation()}
      >
        {opts.title && (
          <h2 id={titleId} className={s.popupTitle}>
            {opts.title}
          </h2>
        )}
        <div id={contentId} className={`${s.popupContent} ${s.fadingScrollbar}`} style={{ maxHeight }} data-testid="confirm-content" {...scrollbar}>
          {opts.content}
        </div>
        <div className={s.popupButtons}>
          {opts.leftLabel && (
            <button type="button" className={s.popupButton} onClick={() => onResult(false)}>
              {opts.leftLabel}
            </button>
          )}
          <button ref={right} type="button" className={`${s.popupButton} ${s.popupPrimary}`} onClick={() => onResult(true)}>
            {opts.rightLabel ?? "확인"}
          </button>
        </div>
      </div>
    </div>
  );
}
