import { lazy, Suspense, useCallback, useEffect, useMemo, useRef, useState } from "react";
import { useNavigate } from "react-router";
import { pageTitle } from "~/utils/meta";
import type { Vol } from "~/utils/storeApi";
import { isHttpError } from "~/utils/http";
import { sectionPath } from "~/utils/layout";
import type { Detail, DownloadAuth } from "~/utils/storeApi";
import { useUser } from "~/utils/userStore";
import { total, type Manifest } from "./media";
import { episodeAt, episodeURL } from "./follow";
import { targetVol, viewerHref, visiblePages, type Direction } from "./nav";
import { loadPlace, type Place } from "./place";
import { SaveOffline } from "./SaveOffline";
import { useAutoScroll } from "./useAutoScroll";
import { useComicPages, useWideScreen } from "./useComicPages";
import { useReadingPlace } from "./useReadingPlace";
import { useReadingPrefs } from "./useReadingPrefs";
import { useEntitlement, useManifest, useNovelTexts } from "./useVolumeMedia";
import { ViewerEnd } from "./ViewerEnd";
import { NovelText, WebtoonStrip } from "./ViewerPages";
import { ViewerSettings } from "./ViewerSettings";
import * as s from "./viewer.css";

// What follows a webtoon episode (the next episodes, the unlock sheet) is its own chunk.
const WebtoonFollow = lazy(() => import("./FollowOn"));
// The comic page and its zoom, likewise: a webtoon or a novel never loads them.
const ComicPage = lazy(() => import("./ComicPage"));

/** manifest: the processed content's, when the loader already has it (undefined: ask here). */
/** savedAuth: the saved copy's entitlement, used when download-auth cannot be asked (no network). */
export type ViewerProps = { detail: Detail; no: number; place?: Place | null; manifest?: Manifest | null; savedAuth?: DownloadAuth | null };

/** The web viewer: webtoon strip, comic pages (spreads on wide screens), novel text. */
export function Viewer({ detail, no, place, manifest: given, savedAuth }: ViewerProps) {
  const p = detail.prodInfo;
  const vol = detail.volList.find((v) => v.no === no)!;
  const user = useUser();
  const navigate = useNavigate();
  const [chrome, setChrome] = useState(true);
  const [settings, setSettings] = useState(false);
  const prefs = useReadingPrefs();
  const [speed, setSpeed] = useState(0);
  const serviceOff = detail.header.code === 201 || detail.header.code === 203;

  const { auth, authDone } = useEntitlement(p.pid, no, user.isLogin, serviceOff, savedAuth);
  // Only a volume the detail names a processed version of has a manifest.
  // An early episode (미리보기) comes from the head alone, without its
  // version: its manifest is asked all the same (the edge answers its buyers' viewer).
  const manifest = useManifest(p.pid, no, !!vol.mediaBase || !!vol.isEarly, given);

  const full = !!auth?.isAuth && !!auth.token;
  const token = full ? auth!.token! : null;
  const ready = authDone && manifest !== undefined;
  const count = manifest ? visiblePages(full, total(manifest), manifest.previewPages) : 0;
  // Processed preview pages need no token: they show while download-auth is
  // still out, and the paid pages join them once it answers.
  const shown = ready ? count : manifest && manifest.kind === "images" ? Math.min(total(manifest), manifest.previewPages) : 0;

  const texts = useNovelTexts(p.section === "EB", ready, count, manifest, token);
  const wide = useWideScreen();
  useAutoScroll(speed, p.section === "WT");

  // Webtoon: the episodes that followed this one on the page (FollowOn.tsx)
  // and the one the reader is in.
  const webtoon = p.section === "WT";
  const [chain, setChain] = useState<Vol[]>([]);
  const [reading, setReading] = useState(no);
  const readingVol = [vol, ...chain].find((v) => v.no === reading) ?? vol;

  const nos = useMemo(() => [...new Set([...detail.volList, ...chain].map((v) => v.no))], [detail.volList, chain]);
  const go = (dir: Direction) => {
    if (dir === "A") return navigate(`/${sectionPath(p.section)}/detail/${p.pid}?tab=V`);
    const t = targetVol(nos, reading, dir, loadPlace(p.pid)?.no);
    if (t !== null) navigate(`/viewer?pid=${encodeURIComponent(p.pid)}&no=${t}`, { replace: true });
  };
  const prevNo = targetVol(nos, reading, "P");
  const nextNo = targetVol(nos, reading, "N");

  const rtl = p.section === "CM" && !!p.rightToLeft;
  const startAt = () => (p.section === "CM" && place && place.no === no ? place.page + 1 : 1);
  const { at, groups, cur, turn } = useComicPages(p.section === "CM", startAt, count, wide, manifest, token, rtl);

  // The episode the reader is in: the address, the title and the place follow it.
  const main = useRef<HTMLElement>(null);
  useEffect(() => {
    if (!webtoon || chain.length === 0) return;
    let raf = 0;
    const onScroll = () => {
      if (raf) return;
      raf = requestAnimationFrame(() => {
        raf = 0;
        const secs = Array.from(main.current?.querySelectorAll<HTMLElement>("[data-episode]") ?? []).map((el) => ({ no: Number(el.dataset.episode), top: el.getBoundingClientRect().top }));
        const n = episodeAt(secs, window.innerHeight / 3);
        if (n !== null) setReading(n);
      });
    };
    window.addEventListener("scroll", onScroll, { passive: true });
    onScroll();
    return () => {
      cancelAnimationFrame(raf);
      window.removeEventListener("scroll", onScroll);
    };
  }, [webtoon, chain.length]);
  useEffect(() => {
    if (chain.length === 0 || new URL(window.location.href).searchParams.get("no") === String(reading)) return;
    // Not a navigation: the pages on screen stay; Back and a reload open the episode read.
    window.history.replaceState(window.history.state, "", episodeURL(window.location.href, reading));
    document.title = pageTitle(`${p.title} ${readingVol.title}`);
  }, [reading, chain.length, p.title, readingVol.title]);
  const segment = useCallback(() => {
    if (reading === no) return null;
    return { no: reading, el: main.current?.querySelector(`[data-episode="${reading}"]`) ?? null };
  }, [reading, no]);

  const laidOut = ready && (p.section !== "EB" || texts.length > 0);
  const { stripRef, textRef, curPage, measure, restore } = useReadingPlace({ pid: p.pid, no, section: p.section, at, laidOut, place, isLogin: user.isLogin, segment });

  // A narrower strip is shorter: keep the panel on screen while it changes.
  const changeWidth = (v: number) => {
    const pl = measure();
    prefs.setWidth(v);
    requestAnimationFrame(() => restore(pl));
  };
  const toggleChrome = () => setChrome((c) => !c);

  // The opened episode's own next (the bar's 다음화 follows the episode being read).
  const endPanel = (
    <ViewerEnd pid={p.pid} section={p.section} no={no} pending={manifest === null} full={full} serviceOff={serviceOff} isLogin={user.isLogin} hasNext={targetVol(nos, no, "N") !== null} go={go} />
  );

  return (
    <div className={p.section === "EB" ? `${s.root} ${s.rootNovel}` : s.root} data-testid="viewer" data-mode={full ? "full" : "preview"} data-section={p.section}>
      <div className={`${s.bar} ${s.top} ${chrome ? "" : s.hiddenTop}`}>
        <button type="button" className={s.btn} onClick={() => go("A")} aria-label="목록으로">
          ‹
        </button>
        <h1 className={s.title}>
          {p.title} · {readingVol.title}
        </h1>
        {!full && ready && <span className={s.previewTag}>미리보기</span>}
        <button type="button" className={s.btn} onClick={() => setSettings((x) => !x)} aria-expanded={settings} aria-label="보기 설정">
          ⚙
        </button>
      </div>

      <main ref={main} onClick={(e) => p.section !== "CM" && !(e.target as Element).closest?.("[data-inline]") && toggleChrome()}>
        {webtoon && (
          <div data-episode={no}>
            <WebtoonStrip no={no} manifest={manifest} shown={shown} token={token} width={prefs.width} curPage={curPage} stripRef={stripRef} end={ready && endPanel} />
          </div>
        )}
        {/* Loaded only after an episode read in full: a preview (and Lighthouse's visitor) never fetches it. */}
        {webtoon && ready && full && (
          <Suspense fallback={null}>
            <WebtoonFollow detail={detail} no={no} user={user} width={prefs.width} onChain={setChain} preview={(n) => navigate(viewerHref(p.pid, n))} />
          </Suspense>
        )}
        {p.section === "CM" && ready && (
          <Suspense fallback={null}>
            <ComicPage manifest={manifest} groups={groups} cur={cur} token={token} turn={turn} toggleChrome={toggleChrome} end={endPanel} rtl={rtl} chrome={chrome} />
          </Suspense>
        )}
        {p.section === "EB" && <NovelText texts={texts} font={prefs.font} textRef={textRef} end={ready && (texts.length > 0 || manifest === null) && endPanel} />}
      </main>

      <div className={`${s.bar} ${s.bottom} ${chrome || settings ? "" : s.hiddenBottom}`}>
        {settings && (
          <ViewerSettings
            section={p.section}
            width={prefs.width}
            changeWidth={changeWidth}
            speed={speed}
            setSpeed={setSpeed}
            font={prefs.font}
            setFont={prefs.setFont}
            qv={prefs.qv}
            toggleQv={prefs.toggleQv}
            offline={full && manifest && user.authInfo && <SaveOffline detail={detail} no={no} manifest={manifest} auth={auth!} uid={user.authInfo.uid} />}
          />
        )}
        <button type="button" className={s.btn} disabled={prevNo === null} onClick={() => go("P")} data-testid="prev-vol">
          ‹ 이전화
        </button>
        <span className={s.pageCount}>
          {p.section === "CM" ? `${Math.min(cur + 1, groups.length)} / ${groups.length}` : `${count}쪽${full ? "" : ` / ${vol.pages}`}`}
        </span>
        <button type="button" className={s.btn} disabled={nextNo === null} onClick={() => go("N")}>
          다음화 ›
        </button>
      </div>
    </div>
  );
}

export function isUnauthorized(e: unknown) {
  return isHttpError(e) && e.status === 401;
}
