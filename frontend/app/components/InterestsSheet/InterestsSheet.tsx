import { useEffect, useId, useState } from "react";
import { useShell } from "~/shell/ShellProvider";
import { http } from "~/utils/api";
import { GENRE_LABELS } from "~/utils/genres";

import * as s from "./InterestsSheet.css";

export const INTERESTS_PATH = "/home/api/v1/users/interests/genres";

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
        const g = await http<{ genres?: Genre[] }>(INTERESTS_PATH, { signal: ctrl.signal });
        setState({ isConfigured: !!ex.isConfigured, showsPopup: true, genres: g.genres ?? [] });
      } catch {
        /* no sheet */
      }
    })();
    return () => ctrl.abort();
  }, []);

  useEffect(() => {
    if (!state) return;
    // Back closes the sheet (it asks again next time, as when it is left unanswered).
    shell.openModal("interests", () => setState(null));
    return () => void shell.closeModal("interests");
  }, [state, shell]);

  if (!state) return null;
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
        {state.genres.map((g) => (
          <button key={g.integratedGenreId} type="button" className={s.chip} aria-pressed={g.isSelected} onClick={() => toggle(g.integratedGenreId)}>
            {g.name ?? GENRE_LABELS[g.integratedGenreId] ?? g.integratedGenreId}
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
