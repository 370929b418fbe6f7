import { useCallback, useEffect, useState } from "react";
import { data, Link, useLoaderData, useLocation } from "react-router";
import * as a from "~/components/authors/authors.css";
import { ListScreen } from "~/components/product/ListScreen";
import { useShell } from "~/shell/ShellProvider";
import { authorIdOf, authorNameIn, FOLLOW_FAILED, FOLLOWED, loadAuthorWorks, UNFOLLOWED } from "~/utils/authors";
import { currentDevice } from "~/utils/device";
import { pageTitle } from "~/utils/meta";
import { guard } from "~/utils/routeData";
import { useUser } from "~/utils/userStore";
import { askPermission, browserPushEnv, followPush, pushMessage } from "~/utils/webPush";
import { addZzim, listZzim, removeZzim } from "~/utils/zzim";

export const meta = ({ data: d }: { data?: { name: string } }) => [{ title: pageTitle(d?.name ? `${d.name} 작가` : "작가") }];

/** The author page (issue 34; not in the seed's table): the author's works, as the reader's audience may see them. */
export async function clientLoader({ request, params }: { request: Request; params: { id?: string } }) {
  const id = authorIdOf(params.id);
  if (id === null) throw data({ message: "작가를 찾을 수 없습니다." }, { status: 404 });
  const list = await guard(loadAuthorWorks(id, 1, request.signal));
  return { id, list, name: authorNameIn(list.list, id) };
}

export default function AuthorPage() {
  const { id, list, name } = useLoaderData<typeof clientLoader>();
  const load = useCallback((p: number) => loadAuthorWorks(id, p), [id]);
  const title = name ? `${name} 작가` : "작가";
  return (
    <ListScreen title={title} initial={list} load={load}>
      <FollowBar id={id} name={name || "이 작가"} />
    </ListScreen>
  );
}

/** Follow for members (the author zzim); a sign-in prompt for visitors. */
function FollowBar({ id, name }: { id: number; name: string }) {
  const user = useUser();
  const shell = useShell();
  const location = useLocation();
  // undefined: not known yet; null: not followed; a number: the zzim's idx.
  const [idx, setIdx] = useState<number | null | undefined>(undefined);
  const [busy, setBusy] = useState(false);
  const uid = user.authInfo?.uid ?? "";

  useEffect(() => {
    if (!user.isLogin || !uid) return;
    let live = true;
    listZzim(uid, "author", { adultLevel: user.adultLevel, channel: currentDevice().channel }).then((m) => {
      if (live && m) setIdx(m.get(String(id)) ?? null);
    });
    return () => {
      live = false;
    };
  }, [user.isLogin, uid, id, user.adultLevel]);

  if (!user.isLogin) {
    const here = location.pathname + location.search;
    return (
      <div className={a.followBar} data-testid="follow-signin">
        <p className={a.followNote}>로그인하면 {name}의 새 작품과 새 회차 소식을 받을 수 있어요.</p>
        <Link className={a.follow} to={`/nuxgin?url=${encodeURIComponent(here)}`}>
          로그인하고 팔로우
        </Link>
      </div>
    );
  }

  const following = typeof idx === "number";
  const toggle = async () => {
    if (busy || idx === undefined) return;
    // The permission prompt must start within the click (webPush.ts).
    const env = browserPushEnv();
    const permission = following ? null : askPermission(env);
    setBusy(true);
    try {
      if (following) {
        if (await removeZzim(uid, "author", idx)) {
          setIdx(null);
          shell.toast(UNFOLLOWED);
        } else shell.toast(FOLLOW_FAILED);
        return;
      }
      const n = await addZzim(uid, "author", String(id));
      if (!n) {
        shell.toast(FOLLOW_FAILED);
        return;
      }
      setIdx(n);
      shell.toast(pushMessage(await followPush(permission, env)) ?? FOLLOWED);
    } finally {
      setBusy(false);
    }
  };
  return (
    <div className={a.followBar}>
      <p className={a.followNote}>{following ? "새 작품과 새 회차가 나오면 알림함과 알림으로 알려 드려요." : `${name}을(를) 팔로우하면 새 소식을 알려 드려요.`}</p>
      <button type="button" className={a.follow} aria-pressed={following} onClick={toggle} disabled={busy || idx === undefined} data-testid="follow">
        {/* One name in both states ("<이름> 팔로우"): a toggle says its state by aria-pressed, and the visible text is part of the name. */}
        <span className="visually-hidden">{name} </span>
        {following && <span aria-hidden="true">✓ </span>}
        팔로우
      </button>
    </div>
  );
}
