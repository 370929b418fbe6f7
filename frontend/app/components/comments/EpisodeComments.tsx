import { useCallback, useEffect, useRef, useState } from "react";
import { useShell } from "~/shell/ShellProvider";
import { useUser } from "~/utils/userStore";
import * as api from "./comments";
import type { Comment, Head, State } from "./comments";
import * as s from "./comments.css";

/**
 * EpisodeComments is the end-of-episode panel's comments: the episode's
 * heart, the creator's note, the pinned comment, best and newest (from the
 * edge's memory), older pages on demand, and for members write, reply,
 * like, report and delete. Bodies are shown as text (React escapes them);
 * spoilers stay blurred until asked for.
 */
export function EpisodeComments({ pid, vol }: { pid: string; vol: number }) {
  const shell = useShell();
  const user = useUser();
  const [head, setHead] = useState<Head | null>(null);
  const [failed, setFailed] = useState<string | null>(null);
  const [tab, setTab] = useState<"best" | "new">("best");
  const [older, setOlder] = useState<Comment[]>([]);
  const [nextPage, setNextPage] = useState(0);
  const [own, setOwn] = useState<Comment[]>([]);
  const [removed, setRemoved] = useState<Set<number>>(new Set());
  const [state, setState] = useState<State>({ myLikes: [], reported: [], mine: [], isMyHeart: false });
  const [liked, setLiked] = useState<Set<number>>(new Set());
  const [likeCnt, setLikeCnt] = useState<Map<number, number>>(new Map());
  const [hearts, setHearts] = useState(0);

  const load = useCallback(async () => {
    try {
      const h = await api.getHead(pid, vol);
      setHead(h);
      setHearts(h.hearts);
      setLikeCnt(new Map());
      setFailed(null);
    } catch (e) {
      setFailed((e as Error).message || "댓글을 불러오지 못했습니다.");
    }
  }, [pid, vol]);
  useEffect(() => {
    void load();
  }, [load]);
  useEffect(() => {
    if (!user.isLogin) return;
    api
      .getState(pid, vol)
      .then((st) => {
        setState(st);
        setLiked(new Set(st.myLikes));
      })
      .catch(() => {});
  }, [pid, vol, user.isLogin]);

  const count = (c: Comment) => likeCnt.get(c.id) ?? c.likeCnt;
  const mine = (c: Comment) => state.mine.includes(c.id) || own.some((o) => o.id === c.id);

  const like = async (c: Comment) => {
    if (!shell.requireMember()) return;
    const t = api.toggleLike({ ...c, likeCnt: count(c) }, liked);
    setLiked(t.liked);
    setLikeCnt((m) => new Map(m).set(c.id, t.comment.likeCnt));
    try {
      const a = await api.likeComment(c.id, t.liked.has(c.id));
      setLikeCnt((m) => new Map(m).set(c.id, a.likeCnt));
    } catch (e) {
      setLiked(liked);
      setLikeCnt((m) => new Map(m).set(c.id, count(c)));
      shell.toast((e as Error).message, 2000);
    }
  };
  const report = async (c: Comment) => {
    if (!shell.requireMember()) return;
    if (!(await shell.confirm({ content: "이 댓글을 신고할까요?", leftLabel: "취소", rightLabel: "신고" }))) return;
    try {
      await api.reportComment(c.id);
      setState((st) => ({ ...st, reported: [...st.reported, c.id] }));
      shell.toast("신고가 접수되었습니다. 운영자가 확인합니다.", 2000);
    } catch (e) {
      shell.toast((e as Error).message, 2000);
    }
  };
  const remove = async (c: Comment) => {
    if (!(await shell.confirm({ content: "댓글을 삭제할까요?", leftLabel: "취소", rightLabel: "삭제" }))) return;
    try {
      await api.deleteComment(c.id);
      setRemoved((r) => new Set(r).add(c.id));
      shell.toast("댓글을 삭제했습니다.", 2000);
    } catch (e) {
      shell.toast((e as Error).message, 2000);
    }
  };
  const heart = async () => {
    if (!shell.requireMember()) return;
    try {
      const a = await api.heartEpisode(pid, vol, !state.isMyHeart);
      setState((st) => ({ ...st, isMyHeart: a.isMyHeart }));
      setHearts(a.heartCnt);
    } catch (e) {
      shell.toast((e as Error).message, 2000);
    }
  };
  const more = async () => {
    if (!head) return;
    const ref = head.pages[nextPage];
    if (!ref) return;
    try {
      const pg = await api.getPage(pid, vol, ref.index);
      // The head's newest are the top of the first page: not twice.
      const shown = new Set([...head.newest, ...older].map((c) => c.id));
      setOlder((o) => [...o, ...pg.comments.filter((c) => !shown.has(c.id))]);
      setNextPage((n) => n + 1);
    } catch (e) {
      shell.toast((e as Error).message, 2000);
    }
  };
  const posted = (c: Comment) => {
    if (c.parentId) {
      setOwn((o) => o.map((x) => (x.id === c.parentId ? { ...x, replies: [...(x.replies ?? []), c] } : x)));
      setHead((h) => (h ? { ...h, newest: api.replaceIn(h.newest, c.parentId!, (p) => ({ ...p, replyCnt: p.replyCnt + 1, replies: [...(p.replies ?? []), c] })), best: api.replaceIn(h.best, c.parentId!, (p) => ({ ...p, replyCnt: p.replyCnt + 1, replies: [...(p.replies ?? []), c] })) } : h));
    } else {
      setOwn((o) => [c, ...o]);
      setTab("new");
    }
    setState((st) => ({ ...st, mine: [...st.mine, c.id] }));
  };

  const shown = head ? (tab === "best" ? head.best : api.withOwn([...head.newest, ...older], own, removed)) : [];
  const visible = shown.filter((c) => !removed.has(c.id));
  const item = (c: Comment, reply: boolean) => (
    <li key={c.id} className={s.item} data-testid={reply ? "comment-reply" : "comment"}>
      <p className={s.meta}>
        <strong>{c.userName}</strong>
        {c.isBuyer && <span className={s.chip}>구매자</span>}
        <time dateTime={c.createdAt}>{new Date(c.createdAt).toLocaleString("ko-KR")}</time>
      </p>
      <CommentBody c={c} />
      <div className={s.actions}>
        <button type="button" className={s.small} aria-pressed={liked.has(c.id)} aria-label={`좋아요 ${count(c)}`} onClick={() => like(c)}>
          {liked.has(c.id) ? "♥" : "♡"} {count(c)}
        </button>
        {mine(c) ? (
          <button type="button" className={s.small} onClick={() => remove(c)}>
            삭제
          </button>
        ) : (
          <button type="button" className={s.small} disabled={state.reported.includes(c.id)} onClick={() => report(c)}>
            {state.reported.includes(c.id) ? "신고됨" : "신고"}
          </button>
        )}
      </div>
      {!reply && (
        <>
          {(c.replies ?? []).filter((r) => !removed.has(r.id)).length > 0 && (
            <ul className={s.replies} aria-label="답글">
              {(c.replies ?? []).filter((r) => !removed.has(r.id)).map((r) => item(r, true))}
            </ul>
          )}
          <Write pid={pid} vol={vol} parent={c} onPosted={posted} />
        </>
      )}
    </li>
  );

  return (
    <section className={s.panel} aria-labelledby="episode-comments-title" data-testid="episode-comments">
      <div className={s.head}>
        <h2 id="episode-comments-title" className={s.h2}>
          댓글 {head ? head.count.toLocaleString("ko-KR") : ""}
        </h2>
        <button type="button" className={s.heart} aria-pressed={state.isMyHeart} onClick={heart} data-testid="episode-heart">
          {state.isMyHeart ? "♥" : "♡"} 하트 {hearts.toLocaleString("ko-KR")}
        </button>
      </div>
      {failed && (
        <p className={s.error} role="alert">
          {failed}
        </p>
      )}
      {head?.note && (
        <p className={s.note} data-testid="creator-note">
          <strong>작가의 말</strong>
          <br />
          {head.note}
        </p>
      )}
      <Write pid={pid} vol={vol} onPosted={posted} />
      {head?.pinned && !removed.has(head.pinned.id) && (
        <ul className={s.list} aria-label="고정된 댓글">
          {item(head.pinned, false)}
        </ul>
      )}
      <div className={s.tabs} role="group" aria-label="댓글 정렬">
        <button type="button" className={s.tab({ on: tab === "best" })} aria-pressed={tab === "best"} onClick={() => setTab("best")}>
          베스트
        </button>
        <button type="button" className={s.tab({ on: tab === "new" })} aria-pressed={tab === "new"} onClick={() => setTab("new")}>
          최신순
        </button>
        <button type="button" className={s.small} onClick={() => void load()} aria-label="댓글 새로고침">
          새로고침
        </button>
      </div>
      {head && visible.length === 0 && <p className={s.empty}>{tab === "best" ? "아직 베스트 댓글이 없습니다." : "첫 댓글을 남겨 주세요."}</p>}
      <ul className={s.list} aria-label={tab === "best" ? "베스트 댓글" : "최신 댓글"} data-testid={tab === "best" ? "best-comments" : "newest-comments"}>
        {visible.map((c) => item(c, false))}
      </ul>
      {tab === "new" && head && nextPage < head.pages.length && (
        <button type="button" className={s.small} onClick={more}>
          이전 댓글 더 보기
        </button>
      )}
    </section>
  );
}

function CommentBody({ c }: { c: Comment }) {
  const [open, setOpen] = useState(!c.isSpoiler);
  if (open) return <p className={s.body}>{c.body}</p>;
  return (
    <p className={s.body}>
      <span className={s.blurred} aria-hidden="true">
        {c.body}
      </span>{" "}
      <button type="button" className={s.reveal} onClick={() => setOpen(true)}>
        스포일러 댓글 보기
      </button>
    </p>
  );
}

/** Write is the form of a comment, or of a reply under parent. */
function Write({ pid, vol, parent, onPosted }: { pid: string; vol: number; parent?: Comment; onPosted: (c: Comment) => void }) {
  const shell = useShell();
  const user = useUser();
  const [open, setOpen] = useState(!parent);
  const [text, setText] = useState("");
  const [spoiler, setSpoiler] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  // One key per text: a retry after a lost answer is the same post.
  const key = useRef(api.newKey());
  if (!open)
    return (
      <button type="button" className={s.small} onClick={() => shell.requireMember() && setOpen(true)}>
        답글 쓰기
      </button>
    );
  const submit = async (e: React.FormEvent) => {
    e.preventDefault();
    if (!shell.requireMember()) return;
    const bad = api.checkBody(text);
    if (bad) {
      setError(bad);
      return;
    }
    setBusy(true);
    setError(null);
    try {
      const a = await api.postComment(pid, vol, key.current, text, spoiler, parent?.id);
      onPosted({
        id: a.id,
        parentId: parent?.id,
        userName: user.authInfo?.displayName || "나",
        body: text,
        isSpoiler: spoiler,
        isBuyer: a.isBuyer,
        likeCnt: 0,
        replyCnt: 0,
        createdAt: new Date().toISOString(),
        page: parent?.page ?? 0,
      });
      key.current = api.newKey();
      setText("");
      setSpoiler(false);
      if (parent) setOpen(false);
    } catch (err) {
      setError((err as Error).message || "댓글을 등록하지 못했습니다.");
    } finally {
      setBusy(false);
    }
  };
  const label = parent ? "답글 쓰기" : "댓글 쓰기";
  return (
    <form className={s.form} onSubmit={submit} data-testid={parent ? "reply-form" : "comment-form"}>
      <textarea
        className={s.textarea}
        rows={parent ? 2 : 3}
        value={text}
        onChange={(e) => {
          setText(e.target.value);
          key.current = api.newKey();
        }}
        aria-label={label}
        placeholder={parent ? "답글을 남겨 주세요" : "이 회차에 대한 댓글을 남겨 주세요"}
      />
      {error && (
        <p className={s.error} role="alert">
          {error}
        </p>
      )}
      <div className={s.bar}>
        <span aria-live="polite">
          {[...text].length}/{api.MAX_CHARS}
        </span>
        <label>
          <input type="checkbox" checked={spoiler} onChange={(e) => setSpoiler(e.target.checked)} /> 스포일러
        </label>
        <button type="submit" className={s.small} disabled={busy}>
          {parent ? "답글 등록" : "등록"}
        </button>
      </div>
    </form>
  );
}
