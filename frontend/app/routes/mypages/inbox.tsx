import { Form, Link, useLoaderData, useNavigate, useNavigation } from "react-router";
import * as a from "~/components/authors/authors.css";
import * as p from "~/components/product/product.css";
import { TitleBar } from "~/components/TitleBar/TitleBar";
import { inboxHref, inboxText, loadInbox, markRead, type InboxItem } from "~/utils/authors";
import { pageTitle } from "~/utils/meta";
import { guard, pageOf } from "~/utils/routeData";
import { loadSideInfo } from "~/utils/userStore";

export const meta = () => [{ title: pageTitle("알림함") }];

/**
 * The notification inbox (issue 34; not in the seed's table), which the
 * sidebar's 새 알림 opens: new works and episodes of the authors the member
 * follows and of the works whose alarm is on, newest first.
 */
export async function clientLoader({ request, params }: { request: Request; params: { page?: string } }) {
  return guard(loadInbox(pageOf(params.page), request.signal));
}

/** 모두 읽음: marks every item read, then the loader runs again. */
export async function clientAction() {
  try {
    await markRead({ all: true });
    void loadSideInfo(); // the sidebar's badge goes with the last unread item
    return { ok: true };
  } catch (e) {
    return { ok: false, message: (e as Error).message || "잠시 후 다시 시도해 주세요." };
  }
}

export default function Inbox() {
  const d = useLoaderData<typeof clientLoader>();
  const nav = useNavigation();
  const navigate = useNavigate();
  // Opening an item marks it read on the way to the viewer; a failed mark
  // only leaves it unread.
  const open = (it: InboxItem) => (e: React.MouseEvent) => {
    if (it.read) return;
    e.preventDefault();
    void markRead({ ids: [it.id] })
      .then(() => loadSideInfo())
      .catch(() => undefined)
      .finally(() => navigate(inboxHref(it)));
  };
  return (
    <section aria-label="알림함" className={p.page}>
      <TitleBar title="알림함" />
      {!d.login ? (
        <p className={p.empty}>
          로그인이 필요한 서비스입니다.
          <br />
          <Link to={`/nuxgin?url=${encodeURIComponent("/mypages/inbox")}`}>로그인하기</Link>
        </p>
      ) : (
        <>
          <div className={a.inboxHead}>
            <p className={a.unread} data-testid="inbox-unread">
              읽지 않은 알림 {d.unread.toLocaleString("ko-KR")}개
            </p>
            {d.unread > 0 && (
              <Form method="post">
                <button type="submit" className={p.select} disabled={nav.state !== "idle"}>
                  모두 읽음
                </button>
              </Form>
            )}
          </div>
          {d.list.length === 0 ? (
            <p className={p.empty}>
              아직 알림이 없습니다.
              <br />
              작가를 팔로우하면 새 작품과 새 회차 소식이 이곳에 와요.
            </p>
          ) : (
            <ul className={p.rows} aria-label="알림">
              {d.list.map((it) => (
                <li key={it.id} className={a.item} data-testid="inbox-item">
                  <Link to={inboxHref(it)} className={a.itemLink} onClick={open(it)}>
                    <p className={it.read ? a.itemTitle : `${a.itemTitle} ${a.itemTitleUnread}`}>
                      {!it.read && (
                        <>
                          <span className={a.dot} aria-hidden="true" />
                          <span className="visually-hidden">읽지 않음, </span>
                        </>
                      )}
                      {it.title}
                    </p>
                    <p className={a.itemText}>
                      {inboxText(it)} · <time dateTime={it.releaseAt}>{new Date(it.releaseAt).toLocaleString("ko-KR", { month: "long", day: "numeric", hour: "numeric", minute: "2-digit" })}</time>
                    </p>
                  </Link>
                </li>
              ))}
            </ul>
          )}
          {d.pageCount > 1 && (
            <nav className={a.pager} aria-label="알림 페이지">
              {d.curPage > 1 ? <Link to={`/mypages/inbox/${d.curPage - 1}`}>이전</Link> : <span />}
              {d.curPage < d.pageCount && <Link to={`/mypages/inbox/${d.curPage + 1}`}>다음</Link>}
            </nav>
          )}
        </>
      )}
    </section>
  );
}
