import { useCallback, useEffect, useRef, useState } from "react";
import { useShell } from "~/shell/ShellProvider";
import { http } from "~/utils/api";
import { API, getReviews, type Paging, type Review } from "~/utils/storeApi";
import { useUser } from "~/utils/userStore";
import { applyLike } from "./reviewRules";
import * as s from "./detail.css";
import { Skeleton } from "~/components/ui/Skeleton";

// hidden: the member's own reviews others do not see (a moderator's hide or 5 reports).
type State = { myLikes: number[]; blocked: number[]; reported: number[]; mine: number[]; hidden?: number[] };

/** Reviews: buyer-only filter, sort by likes (default) or recent; like, report, block, delete, write. */
export function Reviews({ pid, info }: { pid: string; info?: { count: number; point: number } }) {
  const shell = useShell();
  const user = useUser();
  const [buyer, setBuyer] = useState(false);
  const [sort, setSort] = useState<"like" | "recent">("like");
  const [list, setList] = useState<Review[]>([]);
  const [paging, setPaging] = useState<Paging | null>(null);
  const [mine, setMine] = useState<Set<number>>(new Set());
  const [hiddenMine, setHiddenMine] = useState(0);
  const [text, setText] = useState("");
  const [point, setPoint] = useState(5);
  const [spoiler, setSpoiler] = useState(false);

  // The first page for the filter and sort shown is on its way.
  const [loading, setLoading] = useState(true);
  const seq = useRef(0);
  const mineIds = useRef<Set<number>>(new Set());
  const load = useCallback(
    async (page = 1) => {
      // Only the newest request may fill the list (a filter change races the earlier load).
      const my = ++seq.current;
      if (page === 1) setLoading(true);
      const a = await getReviews(pid, buyer, sort, page).catch(() => null);
      if (my !== seq.current) return;
      if (!a) {
        setLoading(false);
        return;
      }
      let rows = a.reviewList;
      if (user.isLogin) {
        const st = await http<State>(`${API}/products/${encodeURIComponent(pid)}/reviews/state`).catch(() => null);
        if (st) {
          const likes = new Set(st.myLikes ?? []);
          const blocked = new Set(st.blocked ?? []);
          const reported = new Set(st.reported ?? []);
          setMine(new Set(st.mine ?? []));
          setHiddenMine(st.hidden?.length ?? 0);
          rows = rows.map((r) => ({ ...r, isMyLike: likes.has(r.id), isBlock: r.isBlock || blocked.has(r.id), isReport: r.isReport || reported.has(r.id) }));
        }
      }
      if (my !== seq.current) return;
      setList((l) => {
        if (page !== 1) return [...l, ...rows];
        // rows the edge has not seen yet stay (own reviews just written)
        const fresh = l.filter((x) => mineIds.current.has(x.id) && !rows.some((r) => r.id === x.id) && (!buyer || x.isBuyerReview));
        return [...fresh, ...rows];
      });
      setPaging(a.paging);
      setLoading(false);
    },
    [pid, buyer, sort, user.isLogin],
  );
  useEffect(() => {
    void load(1);
  }, [load]);

  // Member-only actions start with the shell's one check (a guest in the app goes to native login).
  const like = async (r: Review) => {
    if (!shell.requireMember()) return;
    setList((l) => l.map((x) => (x.id === r.id ? applyLike(x) : x)));
    const a = await http<{ isMyLike: boolean; likeCnt: number }>(`${API}/reviews/${r.id}/like`, { method: "POST" }).catch(() => null);
    setList((l) => l.map((x) => (x.id === r.id ? (a ? { ...x, isMyLike: a.isMyLike, likeCnt: a.likeCnt } : r) : x)));
  };
  const report = async (r: Review) => {
    if (!shell.requireMember()) return;
    if (!(await shell.confirm({ content: "이 리뷰를 신고할까요?", leftLabel: "취소", rightLabel: "신고" }))) return;
    await http(`${API}/reviews/${r.id}/report`, { method: "POST", json: { reason: "spam" } })
      .then(() => {
        setList((l) => l.map((x) => (x.id === r.id ? { ...x, isReport: true } : x)));
        shell.toast("신고가 접수되었습니다.", 2000);
      })
      .catch((e) => shell.toast((e as Error).message, 2000));
  };
  const block = async (r: Review) => {
    if (!shell.requireMember()) return;
    await http(`${API}/reviews/${r.id}/block`, { method: "POST" })
      .then(() => setList((l) => l.map((x) => (x.id === r.id ? { ...x, isBlock: true } : x))))
      .catch(() => {});
  };
  const remove = async (r: Review) => {
    if (!(await shell.confirm({ content: "리뷰를 삭제할까요?", leftLabel: "취소", rightLabel: "삭제" }))) return;
    await http(`${API}/reviews/${r.id}`, { method: "DELETE" })
      .then(() => {
        setList((l) => l.filter((x) => x.id !== r.id));
        setPaging((p) => (p ? { ...p, totalCount: Math.max(0, p.totalCount - 1) } : p));
      })
      .catch((e) => shell.toast((e as Error).message, 2000));
  };
  const write = async (e: React.FormEvent) => {
    e.preventDefault();
    if (!shell.requireMember()) return;
    const body = text.trim();
    if (!body) return;
    try {
      const a = await http<{ id: number; isBuyerReview: boolean }>(`${API}/products/${encodeURIComponent(pid)}/reviews`, {
        method: "POST",
        json: { body, point, isSpoiler: spoiler },
        expect: [201],
      });
      setText("");
      shell.toast("리뷰가 등록되었습니다.", 2000);
      // The edge's list catches up through the catalog feed: show the new review at once.
      const mineRow: Review = {
        id: a.id,
        userName: user.authInfo?.displayName || "나",
        body,
        point,
        isBuyerReview: a.isBuyerReview,
        likeCnt: 0,
        isMyLike: false,
        isBlock: false,
        isReport: false,
        isSpoiler: spoiler,
        createdAt: new Date().toISOString(),
      };
      seq.current++;
      mineIds.current.add(a.id);
      setMine((m) => new Set(m).add(a.id));
      setSort("recent");
      setList((l) => [mineRow, ...l.filter((x) => x.id !== a.id)]);
    } catch (err) {
      shell.toast((err as Error).message || "리뷰를 등록하지 못했습니다.", 2000);
    }
  };

  return (
    <div className={s.block} data-testid="reviews">
      {info && info.count > 0 && (
        <p className={s.h2}>
          ★ {info.point.toFixed(1)} <span className={s.reviewCount}>({info.count.toLocaleString("en-US")}명)</span>
        </p>
      )}
      <form onSubmit={write} className={s.reviewForm}>
        <textarea className={s.textarea} rows={3} value={text} onChange={(e) => setText(e.target.value)} maxLength={1000} placeholder="작품에 대한 감상을 남겨 주세요" aria-label="리뷰 쓰기" />
        <div className={s.reviewBar({ place: "form" })}>
          <select className={s.small} value={point} onChange={(e) => setPoint(Number(e.target.value))} aria-label="별점">
            {[5, 4, 3, 2, 1].map((n) => (
              <option key={n} value={n}>
                {"★".repeat(n)}
              </option>
            ))}
          </select>
          <label className={s.reviewLabel({ size: "small" })}>
            <input type="checkbox" checked={spoiler} onChange={(e) => setSpoiler(e.target.checked)} /> 스포일러
          </label>
          <button type="submit" className={s.small}>
            등록
          </button>
        </div>
      </form>
      <div className={s.reviewBar({ place: "filter" })}>
        <label className={s.reviewLabel({ size: "medium" })}>
          <input type="checkbox" checked={buyer} onChange={(e) => setBuyer(e.target.checked)} /> 구매자 리뷰만
        </label>
        <select className={s.small} value={sort} onChange={(e) => setSort(e.target.value as "like" | "recent")} aria-label="리뷰 정렬">
          <option value="like">좋아요순</option>
          <option value="recent">최신순</option>
        </select>
      </div>
      {hiddenMine > 0 && (
        <p className={s.sheetSub} role="status">
          내 리뷰 {hiddenMine}개는 신고 또는 운영 정책에 따라 다른 독자에게 보이지 않습니다.
        </p>
      )}
      {loading && list.length === 0 && <Skeleton rows={3} label="리뷰를 불러오는 중" />}
      {!loading && list.length === 0 && <p className={s.sheetSub}>아직 리뷰가 없습니다. 첫 리뷰를 남겨 주세요.</p>}
      <ul>
        {list.map((r) => (
          <li key={r.id} className={s.review} data-testid="review">
            <p className={s.reviewHead}>
              <strong>{r.userName}</strong>
              {r.isBuyerReview && <span className={s.chip}>구매자</span>}
              <span>{"★".repeat(r.point)}</span>
              <span className={s.reviewDate}>{new Date(r.createdAt).toLocaleDateString("ko-KR")}</span>
            </p>
            <p className={s.reviewBody}>{r.isBlock ? "차단한 리뷰입니다." : r.isSpoiler ? <details><summary>스포일러가 있는 리뷰입니다.</summary>{r.body}</details> : r.body}</p>
            <div className={s.reviewActions}>
              <button type="button" className={s.small} aria-pressed={r.isMyLike} onClick={() => like(r)} aria-label="좋아요">
                {r.isMyLike ? "♥" : "♡"} {r.likeCnt}
              </button>
              {mine.has(r.id) ? (
                <button type="button" className={s.small} onClick={() => remove(r)}>
                  삭제
                </button>
              ) : (
                <>
                  <button type="button" className={s.small} onClick={() => report(r)} disabled={r.isReport}>
                    {r.isReport ? "신고됨" : "신고"}
                  </button>
                  <button type="button" className={s.small} onClick={() => block(r)} disabled={r.isBlock}>
                    {r.isBlock ? "차단됨" : "차단"}
                  </button>
                </>
              )}
            </div>
          </li>
        ))}
      </ul>
      {paging && paging.curPage < paging.pageCount && (
        <button type="button" className={`${s.small} ${s.more}`} onClick={() => load(paging.curPage + 1)}>
          리뷰 더 보기
        </button>
      )}
    </div>
  );
}
