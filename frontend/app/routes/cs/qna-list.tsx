import { Link, useLoaderData } from "react-router";
import { Pager } from "~/components/product/Pager";
import { TitleBar } from "~/components/TitleBar/TitleBar";
import { http } from "~/utils/api";
import { isHttpError } from "~/utils/http";
import { pageTitle } from "~/utils/meta";
import { API } from "~/utils/storeApi";
import { guard, pageOf } from "~/utils/routeData";
import { userReady } from "~/utils/userStore";
import * as s from "~/components/product/cs.css";

export const meta = () => [{ title: pageTitle("내 문의 내역") }];

type QnA = { id: number; category: string; title: string; body: string; answer: string; isAnswered: boolean; createdAt: string };
type Answer = { list: QnA[]; curPage: number; pageCount: number; login: boolean };

export async function clientLoader({ request, params }: { request: Request; params: { page?: string } }): Promise<Answer> {
  if (!(await userReady()).loginFlag) return { list: [], curPage: 1, pageCount: 1, login: false };
  try {
    return { ...(await http<Omit<Answer, "login">>(`${API}/cs/qna`, { query: { page: pageOf(params.page) }, signal: request.signal })), login: true };
  } catch (e) {
    if (isHttpError(e) && e.status === 401) return { list: [], curPage: 1, pageCount: 1, login: false };
    return guard(Promise.reject(e));
  }
}

export default function Screen() {
  const d = useLoaderData<typeof clientLoader>();
  return (
    <section aria-label="내 문의 내역">
      <TitleBar title="내 문의 내역" />
      {!d.login && (
        <p className={s.text}>
          로그인이 필요한 서비스입니다. <Link to={`/nuxgin?url=${encodeURIComponent("/cs/qna/list")}`}>로그인</Link>
        </p>
      )}
      {d.login && d.list.length === 0 && <p className={s.text}>문의 내역이 없습니다.</p>}
      <ul className={s.list}>
        {d.list.map((q) => (
          <li key={q.id} className={s.item}>
            <details>
              <summary className={s.q}>
                [{q.isAnswered ? "답변 완료" : "답변 대기"}] {q.title}
                <span className={s.date}>{new Date(q.createdAt).toLocaleDateString("ko-KR")}</span>
              </summary>
              <p className={s.a}>{q.body}</p>
              {q.answer && <p className={s.a}>↳ {q.answer}</p>}
            </details>
          </li>
        ))}
      </ul>
      <Pager base="/cs/qna/list" cur={d.curPage} count={d.pageCount} />
    </section>
  );
}
