import { useEffect, useId, useState, useSyncExternalStore } from "react";
import { useShell } from "~/shell/ShellProvider";
import { http } from "~/utils/api";

import * as s from "./InterestsSheet.css";

export const INTERESTS_PATH = "/home/api/v1/users/interests/genres";
/** The catalog's genres with their names (the edge; the writer's answer has ids only). */
export const CATALOG_GENRES_PATH = "/home/api/v1/genres";
const SHEET = "interests";

export type Genre = { integratedGenreId: string; isSelected: boolean; name?: string };
export type InterestsState = { isConfigured: boolean; showsPopup: boolean; genres: Genre[] };

/** The interests-genres bottom sheet (web only, logged in; seed §2, §7). */
export function InterestsSheet() {
  const shell = useShell();
  const titleId = useId();
  const [state, setState] = useState<InterestsState | null>(null);

  useEffect(() => {
    const ctrl = new AbortController();
    (async () => {
      try {
        const ex = await http<{ isConfigured?: boolean; showsPopup?: boolean }>(`${INTERESTS_PATH}/exists`, { signal: ctrl.signal });
        if (!ex.showsPopup) return;
        const [g, cat] = await Promise.all([
          http<{ genres?: Genre[] }>(INTERESTS_PATH, { signal: ctrl.signal }),
          http<{ genres?: { integratedGenreId: string; name: string }[] }>(CATALOG_GENRES_PATH, { signal: ctrl.signal }),
        ]);
        setState({ isConfigured: !!ex.isConfigured, showsPopup: true, genres: withNames(g.genres ?? [], cat.genres ?? []) });
      } catch {
        /* no sheet */
      }
    })();
    return () => ctrl.abort();
  }, []);

  // The sheet comes by itself, after its calls: it never covers a sheet the
  // member opened (issue 24: it popped up over the unlock sheet). It waits
  // while any other modal is open, and steps aside while one is above it.
  const stack = useSyncExternalStore(shell.modals.subscribe, () => shell.modals.list);
  const mine = stack.includes(SHEET);
  const othersOpen = stack.some((id) => id !== SHEET);
  const onTop = stack[stack.length - 1] === SHEET;
  const want = state !== null;
  useEffect(() => {
    if (!want || mine || othersOpen) return;
    // Back closes the sheet (it asks again next time, as when it is left unanswered).
    shell.openModal(SHEET, () => setState(null));
  }, [want, mine, othersOpen, shell]);
  useEffect(() => {
    if (!want) return;
    return () => void shell.closeModal(SHEET);
  }, [want, shell]);

  if (!state || !mine || !onTop) return null;
  const toggle = (id: string) =>
    setState({ ...state, genres: state.genres.map((g) => (g.integratedGenreId === id ? { ...g, isSelected: !g.isSelected } : g)) });
  const reject = async () => {
    setState(null);
    try {
      await http(`${INTERESTS_PATH}/rejection`, { method: "POST", expect: [204] });
    } catch {
      /* asked again next time */
    }
  };
  const save = async () => {
    const genres = state.genres.map(({ integratedGenreId, isSelected }) => ({ integratedGenreId, isSelected }));
    setState(null);
    try {
      await http(INTERESTS_PATH, { method: "PUT", json: { genres }, expect: [201] });
      shell.toast("관심 장르가 저장되었습니다.");
    } catch {
      shell.toast("잠시 후 다시 시도해 주세요.");
    }
  };
  return (
    <div className={s.sheet} role="dialog" aria-modal="true" aria-labelledby={titleId} data-testid="interests-sheet">
      <h2 id={titleId} className={s.title}>
        관심 장르를 알려주세요
      </h2>
      <p className={s.hint}>좋아하는 장르의 작품을 먼저 보여 드릴게요.</p>
      <div className={s.chips}>
        {state.genres.filter((g) => g.name).map((g) => (
          <button key={g.integratedGenreId} type="button" className={s.chip} aria-pressed={g.isSelected} onClick={() => toggle(g.integratedGenreId)}>
            {g.name}
          </button>
        ))}
      </div>
      <div className={s.buttons}>
        <button type="button" className={s.button} onClick={reject}>
          다음에 할게요
        </button>
        <button type="button" className={`${s.button} ${s.primary}`} onClick={save}>
          저장
        </button>
      </div>
    </div>
  );
}

/**
 * withNames gives each of the writer's genres the catalog's name. A genre the
 * catalog does not name has no chip (a bare id means nothing to a reader) but
 * keeps its selection when the sheet is saved.
 */
export function withNames(genres: Genre[], catalog: { integratedGenreId: string; name: string }[]): Genre[] {
  const names = new Map(catalog.map((c) => [c.integratedGenreId, c.name]));
  return genres.map((g) => ({ ...g, name: names.get(g.integratedGenreId) || undefined }));
}
