import { useEffect, useRef, useState } from "react";
import { Link } from "react-router";
import { AppUpdateGate } from "~/components/AppUpdate/AppUpdate";
import { TitleBar } from "~/components/TitleBar/TitleBar";
import { http } from "~/utils/api";
import { pageTitle } from "~/utils/meta";
import { API } from "~/utils/screens/api";
import { useUser } from "~/utils/userStore";
import * as s from "~/components/product/cs.css";
import * as p from "~/components/product/product.css";

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
  const end = useRef<HTMLDivElement>(null);
  const load = async () => {
    try {
      const a = await http<{ list: QnA[] | null }>(`${API}/cs/qna`, { query: { page: 1 } });
      setList([...(a.list ?? [])].reverse());
    } catch {
      /* the greeting stays; the box still sends */
    }
  };
  useEffect(() => {
    if (user.isLogin) void load();
  }, [user.isLogin]);
  useEffect(() => {
    const el = end.current;
    if (el && typeof el.scrollIntoView === "function") el.scrollIntoView({ block: "end" });
  }, [list]);
  const send = async (e: React.FormEvent) => {
    e.preventDefault();
    const body = text.trim();
    if (!body) return;
    await http(`${API}/cs/qna`, { method: "POST", json: { category: "etc", title: body.slice(0, 40), body }, expect: [201] }).catch(() => {});
    setText("");
    void load();
  };
  const bubble = (mine: boolean): React.CSSProperties => ({
    alignSelf: mine ? "flex-end" : "flex-start",
    maxWidth: "78%",
    padding: "9px 12px",
    borderRadius: 14,
    fontSize: 14,
    background: mine ? "#1f6fff" : "rgba(127,127,127,0.14)",
    color: mine ? "#fff" : undefined,
    whiteSpace: "pre-wrap",
  });
  return (
    <section aria-label="상담" className={p.page}>
      <TitleBar title="상담" />
      {!user.isLogin ? (
        <p className={p.empty}>
          로그인이 필요한 서비스입니다. <Link to={`/nuxgin?url=${encodeURIComponent("/conversation")}`}>로그인</Link>
        </p>
      ) : (
        <>
          <div style={{ display: "flex", flexDirection: "column", gap: 8, padding: 16 }} aria-live="polite">
            <p style={bubble(false)}>안녕하세요, 고객센터입니다. 무엇을 도와드릴까요?</p>
            {list.map((q) => (
              <div key={q.id} style={{ display: "flex", flexDirection: "column", gap: 8 }}>
                <p style={bubble(true)}>{q.body}</p>
                {q.answer ? <p style={bubble(false)}>{q.answer}</p> : <p style={{ ...bubble(false), opacity: 0.6 }}>답변을 준비하고 있습니다.</p>}
              </div>
            ))}
            <div ref={end} />
          </div>
          <form onSubmit={send} className={s.search}>
            <input className={s.input} style={{ flex: 1 }} value={text} onChange={(e) => setText(e.target.value)} placeholder="메시지를 입력하세요" aria-label="메시지" maxLength={2000} />
            <button className={s.button} style={{ padding: "0 16px" }} type="submit">
              보내기
            </button>
          </form>
        </>
      )}
    </section>
  );
}
