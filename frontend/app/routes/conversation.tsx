import { useEffect, useMemo, useRef, useState } from "react";
import { CHAT_TEXT, connector, type ChatState } from "~/components/chat/chatState";
import { Link } from "react-router";
import { AppUpdateGate } from "~/components/AppUpdate/AppUpdate";
import { TitleBar } from "~/components/TitleBar/TitleBar";
import { http } from "~/utils/api";
import { pageTitle } from "~/utils/meta";
import { API } from "~/utils/storeApi";
import { useUser } from "~/utils/userStore";
import * as s from "~/components/product/cs.css";
import * as p from "~/components/product/product.css";
import * as ch from "~/components/product/chat.css";
import * as c from "~/components/product/csForm.css";

export const meta = () => [{ title: pageTitle("상담") }];

type QnA = { id: number; title: string; body: string; answer: string; isAnswered: boolean; createdAt: string };

/** Conversation needs app AA 1.4.6, AC 1.5.6, AO 1.5.7, IA 3.26.0 or a browser (seed §5). */
export default function Screen() {
  return (
    <AppUpdateGate feature="conversation">
      <Conversation />
    </AppUpdateGate>
  );
}

/** Conversation: the member's exchanges with customer service as a chat, and a box to ask more. */
function Conversation() {
  const user = useUser();
  const [list, setList] = useState<QnA[]>([]);
  const [text, setText] = useState("");
  const [chat, setChat] = useState<ChatState>("loading");
  const end = useRef<HTMLDivElement>(null);
  const fetchList = async () => {
    const a = await http<{ list: QnA[] | null }>(`${API}/cs/qna`, { query: { page: 1 } });
    setList([...(a.list ?? [])].reverse());
  };
  // The chat connects on demand, when the screen opens, through the seed's
  // widget states: loading, ready, failed (with a retry).
  const connect = useMemo(() => connector(setChat), []);
  const load = () => connect(fetchList);
  useEffect(() => {
    if (user.isLogin) void connect(fetchList);
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [user.isLogin, connect]);
  useEffect(() => {
    const el = end.current;
    if (el && typeof el.scrollIntoView === "function") el.scrollIntoView({ block: "end" });
  }, [list]);
  const send = async (e: React.FormEvent) => {
    e.preventDefault();
    const body = text.trim();
    if (!body) return;
    if (chat !== "ready") return;
    await http(`${API}/cs/qna`, { method: "POST", json: { category: "etc", title: body.slice(0, 40), body }, expect: [201] }).catch(() => {});
    setText("");
    // After a send the list is fetched again without leaving the ready state.
    await fetchList().catch(() => {});
  };
  return (
    <section aria-label="상담" className={p.page}>
      <TitleBar title="상담" />
      {!user.isLogin ? (
        <p className={p.empty}>
          로그인이 필요한 서비스입니다. <Link to={`/nuxgin?url=${encodeURIComponent("/conversation")}`}>로그인</Link>
        </p>
      ) : (
        <>
          <div className={ch.chat} aria-live="polite" aria-busy={chat === "loading"} data-testid="chat" data-state={chat}>
            <p className={ch.bubble({ from: "service" })} role={chat === "ready" ? undefined : "status"}>
              {CHAT_TEXT[chat]}
            </p>
            {chat === "failed" && (
              <button type="button" className={`${s.button} ${ch.retry}`} onClick={() => void load()}>
                다시 연결
              </button>
            )}
            {list.map((q) => (
              <div key={q.id} className={ch.thread}>
                <p className={ch.bubble({ from: "member" })}>{q.body}</p>
                {q.answer ? <p className={ch.bubble({ from: "service" })}>{q.answer}</p> : <p className={ch.bubble({ from: "service", pending: true })}>답변을 준비하고 있습니다.</p>}
              </div>
            ))}
            <div ref={end} />
          </div>
          <form onSubmit={send} className={s.search}>
            <input
              className={`${s.input} ${c.grow}`}
              value={text}
              onChange={(e) => setText(e.target.value)}
              placeholder="메시지를 입력하세요"
              aria-label="메시지"
              maxLength={2000}
              disabled={chat !== "ready"}
            />
            <button className={`${s.button} ${c.buttonWide}`} type="submit" disabled={chat !== "ready"}>
              보내기
            </button>
          </form>
        </>
      )}
    </section>
  );
}
