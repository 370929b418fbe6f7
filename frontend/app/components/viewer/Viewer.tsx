import { useCallback, useEffect, useMemo, useRef, useState } from "react";
import { useNavigate } from "react-router";
import { useMemberStatus } from "~/components/detail/useMemberStatus";
import { UndoBar } from "~/components/detail/UndoBar";
import { useUnlock } from "~/components/detail/useUnlock";
import { pageTitle } from "~/utils/meta";
import { detailState, type Vol } from "~/utils/storeApi";
import { withVolume } from "~/utils/volumes";
import { isHttpError } from "~/utils/http";
import { sectionPath } from "~/utils/layout";
import type { Detail, DownloadAuth } from "~/utils/storeApi";
import { useUser } from "~/utils/userStore";
import { total, type Manifest } from "./media";
import { episodeAt, episodeURL } from "./follow";
import { FollowedEpisode, NextGate } from "./FollowOn";
import { targetVol, viewerHref, visiblePages, type Direction } from "./nav";
import { loadPlace, type Place } from "./place";
import { SaveOffline } from "./SaveOffline";
import { useAutoScroll } from "./useAutoScroll";
import { useComicPages, useWideScreen } from "./useComicPages";
import { useComicZoom } from "./useComicZoom";
import { useReadingPlace } from "./useReadingPlace";
import { useReadingPrefs } from "./useReadingPrefs";
import { useEntitlement, useManifest, useNovelTexts } from "./useVolumeMedia";
import { ViewerEnd } from "./ViewerEnd";
import { ComicPage, NovelText, WebtoonStrip } from "./ViewerPages";
import { ViewerSettings } from "./ViewerSettings";
import { ZOOM_MAX, zoomPercent } from "./zoom";
import * as s from "./viewer.css";

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

  // Webtoon: the episodes that followed this one on the page (FollowOn.tsx),
  // the volumes known so far (a long work's pages of them join as the reader
  // goes), which of them were read in full, and the one the reader is in.
  const webtoon = p.section === "WT";
  const [chain, setChain] = useState<Vol[]>([]);
  const [vols, setVols] = useState(detail.volList);
  const [fullOf, setFullOf] = useState<Record<number, boolean>>({});
  const [reading, setReading] = useState(no);
  const readingVol = [vol, ...chain].find((v) => v.no === reading) ?? vol;

  const nos = useMemo(() => vols.map((v) => v.no), [vols]);
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
  const zoom = useComicZoom(p.section === "CM", cur);

  const tail = chain.at(-1) ?? vol;
  const tailFull = tail.no === no ? full : !!fullOf[tail.no];
  const tailNext = webtoon ? targetVol(nos, tail.no, "N") : null;
  // A long work's next volume may lie on a page of volumes not asked yet.
  useEffect(() => {
    if (!webtoon || !tailFull || tailNext !== null) return;
    let cancel = false;
    withVolume({ ...detail, volList: vols }, tail.no)
      .then((d) => !cancel && d.volList.length > vols.length && setVols(d.volList))
      .catch(() => {});
    return () => {
      cancel = true;
    };
  }, [webtoon, tailFull, tailNext, tail.no, detail, vols]);
  const nextVol = tailNext === null ? null : (vols.find((v) => v.no === tailNext) ?? null);
  const member = { isLogin: user.isLogin && webtoon, uid: user.authInfo?.uid ?? "", adultLevel: user.adultLevel };
  const { status, coupons, now, waitLeft, refresh } = useMemberStatus(p.pid, member);
  const follow = useCallback((v: Vol) => setChain((c) => (c.some((x) => x.no === v.no) ? c : [...c, v])), []);
  const unlock = useUnlock({ ...detail, volList: vols }, detailState(detail.header.code), { status, coupons, now, refresh }, (n) => {
    const v = vols.find((x) => x.no === n);
    if (v) follow(v);
  });
  // A visitor has no entitlements to ask; a member's are asked once (status).
  const gateOptions = nextVol && (!user.isLogin || status) ? (serviceOff ? [] : unlock.optionsFor(nextVol)) : null;
  const onFull = useCallback((n: number, f: boolean) => setFullOf((m) => (m[n] === f ? m : { ...m, [n]: f })), []);

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
    if (reading === no) return;
    // Not a navigation: the pages on screen stay; Back and a reload open the episode read.
    window.history.replaceState(window.history.state, "", episodeURL(window.location.href, reading));
    document.title = pageTitle(`${p.title} ${readingVol.title}`);
  }, [reading, no, p.title, readingVol.title]);
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
        {webtoon && chain.map((v) => <FollowedEpisode key={v.no} pid={p.pid} vol={v} isLogin={user.isLogin} width={prefs.width} onFull={onFull} />)}
        {webtoon && ready && (
          <NextGate
            key={nextVol?.no ?? 0}
            vol={nextVol}
            tailFull={tailFull}
            options={gateOptions}
            user={user}
            waitLeft={waitLeft}
            title={p.title}
            follow={follow}
            choose={unlock.choose}
            preview={(v) => navigate(viewerHref(p.pid, v.no))}
          />
        )}
        {p.section === "CM" && ready && (
          <ComicPage manifest={manifest} groups={groups} cur={cur} token={token} turn={turn} toggleChrome={toggleChrome} end={endPanel} rtl={rtl} zoom={zoom} />
        )}
        {unlock.pending && <UndoBar pending={unlock.pending} />}
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
        {p.section === "CM" && cur < groups.length && (
          <span className={s.zoomBar} role="group" aria-label="확대">
            <button type="button" className={s.btn} onClick={() => zoom.step(-1)} disabled={zoom.z.s <= 1} aria-label="축소">
              −
            </button>
            <button type="button" className={s.btn} onClick={zoom.reset} aria-label={`원래 크기 (지금 ${zoomPercent(zoom.z)})`} data-testid="zoom-level">
              {zoomPercent(zoom.z)}
            </button>
            <button type="button" className={s.btn} onClick={() => zoom.step(1)} disabled={zoom.z.s >= ZOOM_MAX} aria-label="확대하기">
              +
            </button>
          </span>
        )}
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
