import { useEffect, useRef } from "react";
import type { Vol } from "~/utils/storeApi";
import { countdown, won } from "~/utils/format";
import type { UnlockOption } from "./unlock";
import * as s from "./detail.css";

type SheetBalance = { label: string; amount: number; mileage: number };

type Props = { vol: Vol; title: string; options: UnlockOption[]; balance: SheetBalance | null; waitLeft: number; onChoose: (o: UnlockOption) => void; onPreview: () => void; onClose: () => void };

/**
 * The ways to open one locked volume, with the member's balance; Escape or a
 * tap outside closes it. inline: the same sheet standing in the page (the
 * webtoon viewer, after the episode before it): no dim, no focus taken, no
 * close button, since nothing lies behind it.
 */
export function UnlockSheet(props: Props & { inline?: boolean }) {
  if (props.inline)
    return (
      <section className={`${s.sheet} ${s.sheetInline}`} aria-label={`${props.vol.title} 열기`} data-testid="unlock-sheet" data-inline="true">
        <SheetBody {...props} inline />
      </section>
    );
  return <ModalSheet {...props} />;
}

function ModalSheet(props: Props) {
  const { vol, onClose } = props;
  const ref = useRef<HTMLDivElement>(null);
  useEffect(() => {
    ref.current?.focus();
    const k = (e: KeyboardEvent) => e.key === "Escape" && onClose();
    window.addEventListener("keydown", k);
    return () => window.removeEventListener("keydown", k);
  }, [onClose]);
  return (
    <div className={s.sheetWrap} onClick={onClose}>
      <div className={s.sheet} role="dialog" aria-modal="true" aria-label={`${vol.title} 열기`} onClick={(e) => e.stopPropagation()} ref={ref} tabIndex={-1} data-testid="unlock-sheet">
        <SheetBody {...props} />
      </div>
    </div>
  );
}

function SheetBody({ vol, title, options, balance, waitLeft, onChoose, onPreview, onClose, inline }: Props & { inline?: boolean }) {
  return (
    <>
      <p className={s.sheetTitle}>{vol.title}</p>
      <p className={s.sheetSub}>{title} · 이 회차를 여는 방법</p>
      {balance && (
        <p className={s.sheetSub} data-testid="sheet-balance">
          보유 {balance.label} {won(balance.amount)}
          {balance.mileage > 0 && ` · 마일리지 ${won(balance.mileage)}`}
        </p>
      )}
      {options.length === 0 && <p className={s.sheetSub}>지금은 이 회차를 열 수 없습니다.</p>}
      {options.map((o) => (
        <button key={o.kind} type="button" className={s.option} disabled={!o.available} onClick={() => onChoose(o)} data-kind={o.kind}>
          {o.label}
          {o.price !== undefined && <strong>{won(o.price)}</strong>}
          <span className={s.optionNote}>{o.kind === "wff" && waitLeft > 0 ? `${countdown(waitLeft)} 후 무료` : o.note}</span>
        </button>
      ))}
      {vol.isPreView && vol.previewPages > 0 && (
        <button type="button" className={s.option} onClick={onPreview} data-kind="preview">
          미리보기<span className={s.optionNote}>{vol.previewPages}쪽</span>
        </button>
      )}
      {!inline && (
        <button type="button" className={`${s.option} ${s.optionClose}`} onClick={onClose}>
          닫기
        </button>
      )}
    </>
  );
}
