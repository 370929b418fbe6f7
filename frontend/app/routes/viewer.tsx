import { useEffect, useState } from "react";
import { data, Link, useLoaderData, useNavigate } from "react-router";
import { NO_PRODUCT_TEXT } from "~/utils/errors";
import { useShell } from "~/shell/ShellProvider";
import { previewLoginFirst, UNSUPPORTED, UNSUPPORTED_MS, webViewerSupported } from "~/components/viewer/nav";
import { getServerPlace, loadPlace, newest } from "~/components/viewer/place";
import { getManifest, preloadFirstStrip } from "~/components/viewer/media";
import { Viewer } from "~/components/viewer/Viewer";
import * as vs from "~/components/viewer/viewer.css";
import { findSaved, loadSaved, type SavedAnswers } from "~/offline/savedVolumes";
import type { SavedVolume } from "~/offline/savedIndex";
import { http } from "~/utils/api";
import { isHttpError } from "~/utils/http";
import { app } from "~/utils/bridge";
import { currentDevice, hasAppViewer } from "~/utils/device";
import { sectionPath } from "~/utils/layout";
import { pageTitle } from "~/utils/meta";
import { API, getDetail, type Detail } from "~/utils/storeApi";
import { getLocal, LOCAL } from "~/utils/prefs";
import { guard } from "~/utils/routeData";
import { userReady, viewOf } from "~/utils/userStore";
import { withVolume } from "~/utils/volumes";

export const meta = () => [{ title: pageTitle("뷰어") }];

type Recent = { list: { pid: string; vol: number }[] };

/**
 * /viewer/?pid=&no=&isMobileApp=True. Without a volume number the reader
 * resumes the last place (direction I): the newest of the writer's reading
 * place (any device) and this device's, else the writer's recently viewed
 * volume, else the first volume. The place inside the volume comes along.
 */
export async function clientLoader({ request }: { request: Request }) {
  const url = new URL(request.url);
  const pid = url.searchParams.get("pid") ?? "";
  if (!pid) throw data({ message: NO_PRODUCT_TEXT }, { status: 404 });
  const asked0 = Number(url.searchParams.get("no") ?? url.searchParams.get("vol"));
  // Without a network, a volume the member saved opens from its saved copy.
  let saved: SavedCopy | null = null;
  const detailP = getDetail(pid, request.signal).catch(async (e) => {
    if (!isHttpError(e) || e.kind !== "network" || !(saved = await savedCopy(pid, asked0))) throw e;
    return saved.answers.detail;
  });
  // The volume asked for by number is known once the detail is in (a long
  // work's from its page of volumes): its processed content's manifest and
  // first strip start at once, beside the user and place lookups below.
  const asked = asked0;
  const askedP = guard(detailP.then((d) => (saved ? d : withVolume(d, asked, request.signal))));
  const early = askedP.then((d) => startMedia(d, asked, request.signal));
  // When the detail fails the loader throws that, and this one is not awaited.
  early.catch(() => {});
  let [detail, user] = await Promise.all([askedP, userReady()]);
  const isLogin = viewOf(user, currentDevice()).isLogin;
  // has: the work has volume n, which is then in detail.volList (a long
  // work's page of it asked now; none asked for a work the detail lists whole).
  const has = async (n: number | undefined) => {
    if (n === undefined || !Number.isInteger(n)) return false;
    if (!saved) detail = await withVolume(detail, n, request.signal).catch(() => detail);
    return detail.volList.some((v) => v.no === n);
  };
  const local = loadPlace(pid);
  const server = isLogin ? await getServerPlace(pid, request.signal).catch(() => null) : null;
  const last = newest(server, local);
  let no: number | undefined = asked;
  const offline = saved as SavedCopy | null;
  if (offline && !(await has(no))) no = offline.vol.no;
  if (!(await has(no))) {
    if (last && (await has(last.no))) no = last.no;
    else {
      const recent = isLogin ? await http<Recent>(`${API}/users/recent`, { query: { page: 1, size: 100 }, signal: request.signal }).catch(() => null) : null;
      const r = recent?.list.find((x) => x.pid === pid)?.vol;
      no = (await has(r)) ? r : detail.volList[0]?.no;
    }
  }
  if (no === undefined) throw new Response("no volume", { status: 404 });
  const place = newest(server?.no === no ? server : null, local?.no === no ? local : null);
  let manifest = await (no === asked ? early : startMedia(detail, no, request.signal));
  // A saved volume's pages come from its saved copy (the service worker
  // answers the marked addresses), online too: no second download.
  const own = isLogin && user.authInfo ? findSaved(user.authInfo.uid, pid, no) : undefined;
  if (own) {
    manifest ??= (offline?.vol === own ? offline.answers : await loadSaved(own))?.manifest ?? null;
    if (manifest) manifest = { ...manifest, saved: true };
  }
  const savedAuth = offline?.vol.no === no ? offline.answers.auth : null;
  return { detail, no, place, manifest, savedAuth, isMobileApp: /^true$/i.test(url.searchParams.get("isMobileApp") ?? "") };
}

type SavedCopy = { vol: SavedVolume; answers: SavedAnswers };

/** savedCopy: the member's saved copy of pid (the volume asked for, else any of the work's). */
async function savedCopy(pid: string, asked: number): Promise<SavedCopy | null> {
  const uid = (await userReady()).authInfo?.uid;
  const vol = uid ? findSaved(uid, pid, asked > 0 ? asked : null) : undefined;
  const answers = vol ? await loadSaved(vol) : null;
  return vol && answers ? { vol, answers } : null;
}

/**
 * startMedia asks for volume no's manifest when the detail names processed
 * content for it (null otherwise: generated pages), and starts the first
 * webtoon strip's download at the width the viewer will ask, since the
 * strip, not the viewer's calls, is what the reader waits to see.
 */
function startMedia(detail: Detail, no: number, signal: AbortSignal) {
  const vol = detail.volList.find((v) => v.no === no);
  // An early episode (미리보기) comes from the work's head without its version: its manifest is asked all the same.
  if (vol?.isEarly) return getManifest(detail.prodInfo.pid, no, signal);
  if (!vol?.mediaBase) return Promise.resolve(null);
  if (detail.prodInfo.section === "WT" && vol.previewPages > 0) preloadFirstStrip(vol.mediaBase, `${Number(getLocal(LOCAL.webtoonWidth)) || 100}vw`);
  return getManifest(detail.prodInfo.pid, no, signal);
}

export default function Screen() {
  const { detail, no, place, manifest, savedAuth } = useLoaderData<typeof clientLoader>();
  const navigate = useNavigate();
  const shell = useShell();
  const [state, setState] = useState<"web" | "app" | "unsupported" | "login">("web");
  const here = `/viewer?pid=${encodeURIComponent(detail.prodInfo.pid)}&no=${no}`;
  useEffect(() => {
    const d = currentDevice();
    // App 6.0.0 and above has its own viewer; older builds use this one.
    if (d.isApp && hasAppViewer(d) && app.openViewer(detail.prodInfo.pid, no, false)) {
      setState("app");
      return;
    }
    // Below 6.0.0 a preview in the app needs login (seed §5): the shell's member check first.
    const vol = detail.volList.find((v) => v.no === no);
    if (vol && previewLoginFirst(d, vol) && !shell.requireMember(here)) {
      setState("login");
      return;
    }
    setState("web");
    if (!webViewerSupported(window as unknown as { IntersectionObserver?: unknown; fetch?: unknown })) {
      setState("unsupported");
      const t = setTimeout(() => navigate(`/${sectionPath(detail.prodInfo.section)}/detail/${detail.prodInfo.pid}`, { replace: true }), UNSUPPORTED_MS);
      return () => clearTimeout(t);
    }
  }, [detail, no, navigate, shell, here]);
  if (state === "unsupported")
    return (
      <p className={vs.notice} role="alert" data-testid="unsupported">
        {UNSUPPORTED}
      </p>
    );
  if (state === "login")
    return (
      <p className={vs.notice} role="alert" data-testid="preview-login">
        미리보기는 로그인 후 이용할 수 있습니다.{" "}
        <button type="button" className={vs.noticeButton} onClick={() => shell.requireMember(here)}>
          로그인
        </button>{" "}
        <Link className={vs.noticeButton} to={`/${sectionPath(detail.prodInfo.section)}/detail/${detail.prodInfo.pid}`} replace>
          작품으로
        </Link>
      </p>
    );
  if (state === "app") return <p className={vs.notice}>앱 뷰어에서 열고 있습니다.</p>;
  return <Viewer key={`${detail.prodInfo.pid}-${no}`} detail={detail} no={no} place={place} manifest={manifest} savedAuth={savedAuth} />;
}
