import { useMemo, useState } from "react";
import { useNavigate } from "react-router";
import { isHttpError } from "~/utils/http";
import { sectionPath } from "~/utils/layout";
import type { Detail, DownloadAuth } from "~/utils/storeApi";
import { useUser } from "~/utils/userStore";
import { total, type Manifest } from "./media";
import { targetVol, visiblePages, type Direction } from "./nav";
import { loadPlace, type Place } from "./place";
import { SaveOffline } from "./SaveOffline";
import { useAutoScroll } from "./useAutoScroll";
import { useComicPages, useWideScreen } from "./useComicPages";
import { useReadingPlace } from "./useReadingPlace";
import { useReadingPrefs } from "./useReadingPrefs";
import { useEntitlement, useManifest, useNovelTexts } from "./useVolumeMedia";
import { ViewerEnd } from "./ViewerEnd";
import { ComicPage, NovelText, WebtoonStrip } from "./ViewerPages";
import { ViewerSettings } from "./ViewerSettings";
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

  const nos = useMemo(() => detail.volList.map((v) => v.no), [detail.volList]);
  const go = (dir: Direction) => {
    if (dir === "A") return navigate(`/${sectionPath(p.section)}/detail/${p.pid}?tab=V`);
    const t = targetVol(nos, no, dir, loadPlace(p.pid)?.no);
    if (t !== null) navigate(`/viewer?pid=${encodeURIComponent(p.pid)}&no=${t}`, { replace: true });
  };
  const prevNo = targetVol(nos, no, "P");
  const nextNo = targetVol(nos, no, "N");

  const startAt = () => (p.section === "CM" && place && place.no === no ? place.page + 1 : 1);
  const { at, groups, cur, turn } = useComicPages(p.section === "CM", startAt, count, wide, manifest, token);

  const laidOut = ready && (p.section !== "EB" || texts.length > 0);
  const { stripRef, textRef, curPage, measure, restore } = useReadingPlace({ pid: p.pid, no, section: p.section, at, laidOut, place, isLogin: user.isLogin });

  // A narrower strip is shorter: keep the panel on screen while it changes.
  const changeWidth = (v: number) => {
    const pl = measure();
    prefs.setWidth(v);
    requestAnimationFrame(() => restore(pl));
  };
  const toggleChrome = () => setChrome((c) => !c);

  const endPanel = (
    <ViewerEnd pid={p.pid} section={p.section} no={no} pending={manifest === null} full={full} serviceOff={serviceOff} isLogin={user.isLogin} hasNext={nextNo !== null} go={go} />
  );

  return (
    <div className={p.section === "EB" ? `${s.root} ${s.rootNovel}` : s.root} data-testid="viewer" data-mode={full ? "full" : "preview"} data-section={p.section}>
      <div className={`${s.bar} ${s.top} ${chrome ? "" : s.hiddenTop}`}>
        <button type="button" className={s.btn} onClick={() => go("A")} aria-label="목록으로">
          ‹
        </button>
        <h1 className={s.title}>
          {p.title} · {vol.title}
        </h1>
        {!full && ready && <span className={s.previewTag}>미리보기</span>}
        <button type="button" className={s.btn} onClick={() => setSettings((x) => !x)} aria-expanded={settings} aria-label="보기 설정">
          ⚙
        </button>
      </div>

      <main onClick={() => p.section !== "CM" && toggleChrome()}>
        {p.section === "WT" && (
          <WebtoonStrip no={no} manifest={manifest} shown={shown} token={token} width={prefs.width} curPage={curPage} stripRef={stripRef} end={ready && endPanel} />
        )}
        {p.section === "CM" && ready && <ComicPage manifest={manifest} groups={groups} cur={cur} token={token} turn={turn} toggleChrome={toggleChrome} end={endPanel} />}
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
