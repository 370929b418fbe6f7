import { useState } from "react";
import { Link, useNavigate } from "react-router";
import { useShell } from "~/shell/ShellProvider";
import { http } from "~/utils/api";
import { isHttpError } from "~/utils/http";
import { API } from "~/utils/storeApi";
import { userReady } from "~/utils/userStore";
import { sectionPath } from "~/utils/layout";
import * as s from "./product.css";
import * as pg from "./pages.css";

export type RecentItem = { pid: string; vol: number; viewedAt: string; title: string; section: string; thumbUrl: string; isAdult: boolean; unit?: string };

/** What the work's volumes are counted in: the writer's unit, else webtoons in 화, comics and novels in 권. */
export const unitOf = (it: Pick<RecentItem, "unit" | "section">) => it.unit || (it.section === "WT" ? "화" : "권");
export type RecentAnswer = { list: RecentItem[]; curPage: number; pageCount: number; totalCount: number; login: boolean };

export async function loadRecent(page: number, signal?: AbortSignal): Promise<RecentAnswer> {
  if (!(await userReady()).loginFlag) return { list: [], curPage: 1, pageCount: 1, totalCount: 0, login: false };
  try {
    const a = await http<Omit<RecentAnswer, "login">>(`${API}/users/recent`, { query: { page, size: 30 }, signal });
    return { ...a, login: true };
  } catch (e) {
    if (isHttpError(e) && e.status === 401) return { list: [], curPage: 1, pageCount: 1, totalCount: 0, login: false };
    throw e;
  }
}

/** Recently viewed works; in edit mode they can be picked and deleted. */
export function RecentList({ data, edit }: { data: RecentAnswer; edit: boolean }) {
  const shell = useShell();
  const navigate = useNavigate();
  const [items, setItems] = useState(data.list);
  const [picked, setPicked] = useState<Set<string>>(new Set());
  const toggle = (pid: string) =>
    setPicked((p) => {
      const n = new Set(p);
      if (n.has(pid)) n.delete(pid);
      else n.add(pid);
      return n;
    });
  const remove = async () => {
    if (picked.size === 0) return;
    const ok = await shell.confirm({ content: `선택한 ${picked.size}개 작품을 최근 본 목록에서 삭제할까요?`, leftLabel: "취소", rightLabel: "삭제" });
    if (!ok) return;
    try {
      await http(`${API}/users/recent/delete`, { method: "POST", json: { pids: [...picked].join(",") } });
      setItems((l) => l.filter((x) => !picked.has(x.pid)));
      setPicked(new Set());
      shell.toast("삭제되었습니다.");
    } catch (e) {
      shell.toast((e as Error).message || "삭제하지 못했습니다.");
    }
  };
  if (!data.login) {
    return (
      <p className={s.empty}>
        로그인이 필요한 서비스입니다.
        <br />
        <Link to={`/nuxgin?url=${encodeURIComponent("/mypages/recent")}`} className={pg.underline}>
          로그인하기
        </Link>
      </p>
    );
  }
  return (
    <>
      {edit && (
        <div className={`${s.controls} ${pg.controlsTop}`}>
          <span className={s.count}>{picked.size}개 선택</span>
          <button type="button" className={s.select} onClick={() => setPicked(new Set(items.map((i) => i.pid)))}>
            전체 선택
          </button>
          <button type="button" className={`${s.select} ${pg.removePicked}`} onClick={remove} disabled={picked.size === 0}>
            삭제
          </button>
          <button type="button" className={s.select} onClick={() => navigate("/mypages/recent")}>
            완료
          </button>
        </div>
      )}
      {items.length === 0 && <p className={s.empty}>최근 본 작품이 없습니다.</p>}
      <ul className={s.rows} aria-label="최근 본 작품">
        {items.map((it) => {
          const href = `/${sectionPath(it.section)}/detail/${encodeURIComponent(it.pid)}`;
          const body = (
            <>
              <div className={s.rowThumb}>
                <div className={s.thumbWrap}>
                  <img className={s.thumb} src={it.thumbUrl} alt="" width={64} height={85} loading="lazy" />
                </div>
              </div>
              <div className={s.rowBody}>
                <p className={s.title}>{it.title}</p>
                <p className={s.authors}>{it.vol}{unitOf(it)}까지 봤어요 · {new Date(it.viewedAt).toLocaleDateString("ko-KR")}</p>
              </div>
            </>
          );
          return (
            <li key={it.pid} data-testid="recent-item">
              {edit ? (
                <label className={`${s.row} ${pg.rowPick}`}>
                  <input type="checkbox" checked={picked.has(it.pid)} onChange={() => toggle(it.pid)} aria-label={`${it.title} 선택`} />
                  {body}
                </label>
              ) : (
                <Link to={href} className={s.row}>
                  {body}
                </Link>
              )}
            </li>
          );
        })}
      </ul>
    </>
  );
}
