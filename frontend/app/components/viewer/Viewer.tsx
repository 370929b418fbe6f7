import { useCallback, useEffect, useMemo, useRef, useState } from "react";
import { Link, useNavigate } from "react-router";
import { http } from "~/utils/api";
import { isHttpError } from "~/utils/http";
import { sectionPath } from "~/utils/layout";
import { API, downloadAuth, type Detail, type DownloadAuth } from "~/utils/storeApi";
import { getLocal, LOCAL, quickView, setLocal, setQuickView } from "~/utils/prefs";
import { useUser } from "~/utils/userStore";
import { chunkURL, eagerUntil, fallbackWidth, getManifest, pageURL, sanitizeChunk, srcSet, total, type Manifest } from "./media";
import { spreads, targetVol, visiblePages, type Direction } from "./nav";
import { SaveOffline } from "./SaveOffline";
import { loadPlace, placeSync, savePlace, stripPlace, stripY, textOffset, textTarget, type Box, type Place } from "./place";
import * as s from "./viewer.css";

/** manifest: the processed content's, when the loader already has it (undefined: ask here). */
/** savedAuth: the saved copy's entitlement, used when download-auth cannot be asked (no network). */
export type ViewerProps = { detail: Detail; no: number; place?: Place | null; manifest?: Manifest | null; savedAuth?: DownloadAuth | null };

const AUTO_SPEEDS = [0, 40, 80, 140, 220]; // px per second

/** The web viewer: webtoon strip, comic pages (spreads on wide screens), novel text. */
export function Viewer({ detail, no, place, manifest: given, savedAuth }: ViewerProps) {
  const p = detail.prodInfo;
  const vol = detail.volList.find((v) => v.no === no)!;
  const user = useUser();
  const navigate = useNavigate();
  const [auth, setAuth] = useState<DownloadAuth | null>(null);
  const [authDone, setAuthDone] = useState(false);
  const [chrome, setChrome] = useState(true);
  const [settings, setSettings] = useState(false);
  const [qv, setQv] = useState(quickView);
  const [width, setWidth] = useState(() => Number(getLocal(LOCAL.webtoonWidth)) || 100);
  const [font, setFont] = useState(() => {
    try {
      return JSON.parse(getLocal(LOCAL.novelFont) ?? "null") ?? { size: 17, line: 1.8 };
    } catch {
      return { size: 17, line: 1.8 };
    }
  });
  const [speed, setSpeed] = useState(0);
  // Comic: the first page (1-based) on screen; spreads are derived from it, so
  // turning the phone keeps the page. count + 1 is the end panel.
  const [at, setAt] = useState(() => (p.section === "CM" && place && place.no === no ? place.page + 1 : 1));
  const [texts, setTexts] = useState<string[]>([]);
  // The processed content's manifest: undefined while asked, null for a
  // volume whose content is not processed yet (nothing to show but a note).
  const [manifest, setManifest] = useState<Manifest | null | undefined>(given);
  // The page at the top of the screen (from 1): the next few load ahead.
  const [curPage, setCurPage] = useState(1);
  const [wide, setWide] = useState(false);
  const serviceOff = detail.header.code === 201 || detail.header.code === 203;

  // Entitlement: the writer's download-auth answers a content token for the full volume.
  useEffect(() => {
    let cancel = false;
    setAuth(null);
    setAuthDone(false);
    if (!user.isLogin || serviceOff) {
      setAuthDone(true);
      return;
    }
    downloadAuth(p.pid, no)
      .catch((e) => {
        if (savedAuth) return savedAuth;
        throw e;
      })
      .then((a) => !cancel && setAuth(a))
      .catch(() => {})
      .finally(() => !cancel && setAuthDone(true));
    // The reader's last volume goes to the writer (recently viewed): any device resumes there.
    http(`${API}/users/recent`, { method: "POST", json: { pid: p.pid, vol: no } }).catch(() => {});
    return () => {
      cancel = true;
    };
  }, [p.pid, no, user.isLogin, serviceOff, savedAuth]);

  // Only a volume the detail names a processed version of has a manifest.
  const hasMedia = !!vol.mediaBase;
  useEffect(() => {
    if (given !== undefined) return;
    let cancel = false;
    setManifest(hasMedia ? undefined : null);
    if (hasMedia) getManifest(p.pid, no).then((m) => !cancel && setManifest(m));
    return () => {
      cancel = true;
    };
  }, [p.pid, no, hasMedia, given]);

  const full = !!auth?.isAuth && !!auth.token;
  const token = full ? auth!.token! : null;
  const ready = authDone && manifest !== undefined;
  const count = manifest ? visiblePages(full, total(manifest), manifest.previewPages) : 0;
  // Processed preview pages need no token: they show while download-auth is
  // still out, and the paid pages join them once it answers.
  const shown = ready ? count : manifest && manifest.kind === "images" ? Math.min(total(manifest), manifest.previewPages) : 0;

  // Novel text pages: processed chunks (sanitized HTML, cleaned again here).
  useEffect(() => {
    if (p.section !== "EB" || !ready || !manifest) return;
    let cancel = false;
    Promise.all(Array.from({ length: count }, (_, i) => fetch(chunkURL(manifest, i + 1, token)).then((r) => (r.ok ? r.text() : ""))))
      .then((t) => !cancel && setTexts(t.map(sanitizeChunk)))
      .catch(() => {});
    return () => {
      cancel = true;
    };
  }, [p.section, ready, count, manifest, token]);

  // Wide screens show comic spreads.
  useEffect(() => {
    const mq = window.matchMedia("(min-width: 720px) and (orientation: landscape)");
    const on = () => setWide(mq.matches);
    on();
    mq.addEventListener("change", on);
    return () => mq.removeEventListener("change", on);
  }, []);

  // Auto-scroll in webtoon mode.
  useEffect(() => {
    const v = AUTO_SPEEDS[speed];
    if (!v || p.section !== "WT") return;
    let last = performance.now();
    let raf = 0;
    const step = (t: number) => {
      window.scrollBy(0, (v * (t - last)) / 1000);
      last = t;
      raf = requestAnimationFrame(step);
    };
    raf = requestAnimationFrame(step);
    return () => cancelAnimationFrame(raf);
  }, [speed, p.section]);

  const nos = useMemo(() => detail.volList.map((v) => v.no), [detail.volList]);
  const go = (dir: Direction) => {
    if (dir === "A") return navigate(`/${sectionPath(p.section)}/detail/${p.pid}?tab=V`);
    const t = targetVol(nos, no, dir, loadPlace(p.pid)?.no);
    if (t !== null) navigate(`/viewer?pid=${encodeURIComponent(p.pid)}&no=${t}`, { replace: true });
  };
  const prevNo = targetVol(nos, no, "P");
  const nextNo = targetVol(nos, no, "N");

  // Comic pages: keys and preloading of the next two pages.
  const groups = useMemo(() => spreads(count, wide), [count, wide]);
  const found = groups.findIndex((g) => g.includes(at));
  const cur = found >= 0 ? found : groups.length;
  const turn = useCallback(
    (d: 1 | -1) =>
      setAt((a) => {
        const i = groups.findIndex((g) => g.includes(a));
        const from = i >= 0 ? i : groups.length;
        const to = Math.min(Math.max(from + d, 0), groups.length);
        return to < groups.length ? groups[to][0] : count + 1;
      }),
    [groups, count],
  );
  useEffect(() => {
    if (p.section !== "CM") return;
    for (const n of manifest ? groups.slice(cur + 1, cur + 3).flat() : []) {
      const img = new Image();
      img.sizes = wide ? "50vw" : "100vw";
      img.srcset = srcSet(manifest!, n, token);
    }
    const k = (e: KeyboardEvent) => {
      if (e.key === "ArrowRight") turn(1);
      if (e.key === "ArrowLeft") turn(-1);
    };
    window.addEventListener("keydown", k);
    return () => window.removeEventListener("keydown", k);
  }, [p.section, groups, cur, turn, manifest, token, wide]);

  // The reader's place: measured from the screen, kept on this device and
  // sent to the writer (throttled; by beacon when the page goes away), and
  // restored once the pages are laid out. Nothing is saved before the
  // restore, so opening a volume never overwrites another device's place.
  const stripRef = useRef<HTMLDivElement>(null);
  const textRef = useRef<HTMLDivElement>(null);
  const last = useRef<Place | null>(null);
  const [restored, setRestored] = useState(false);
  const sync = useMemo(() => placeSync(p.pid), [p.pid]);
  const measure = useCallback((): Place => {
    const y = window.scrollY;
    const box = (el: Element): Box => {
      const r = el.getBoundingClientRect();
      return { top: r.top + y, height: r.height };
    };
    const base = { no, page: 0, ratio: 0, offset: 0, at: Date.now() };
    if (p.section === "CM") return { ...base, page: Math.max(0, at - 1) };
    if (p.section === "WT") {
      const imgs = Array.from(stripRef.current?.querySelectorAll("[data-testid=page]") ?? []);
      return { ...base, ...stripPlace(imgs.map(box), y) };
    }
    const paras = Array.from(textRef.current?.querySelectorAll("p") ?? []);
    const lengths = paras.map((el) => el.firstChild?.textContent?.length ?? 0);
    const range = document.createRange();
    const bottom = (i: number, k: number) => {
      const t = paras[i].firstChild!;
      range.setStart(t, k);
      range.setEnd(t, k + 1);
      return range.getBoundingClientRect().bottom + y;
    };
    const h = document.documentElement.scrollHeight - window.innerHeight;
    return { ...base, offset: textOffset(lengths, paras.map(box), y, bottom), ratio: h > 0 ? Math.min(1, y / h) : 0 };
  }, [no, p.section, at]);
  const record = useCallback(() => {
    const pl = measure();
    last.current = pl;
    setCurPage(pl.page + 1);
    savePlace(p.pid, pl);
    if (user.isLogin) sync.update(pl);
  }, [measure, p.pid, user.isLogin, sync]);
  const restore = useCallback(
    (pl: Place) => {
      const y = window.scrollY;
      if (p.section === "WT") {
        const imgs = Array.from(stripRef.current?.querySelectorAll("[data-testid=page]") ?? []);
        const boxes = imgs.map((el) => {
          const r = el.getBoundingClientRect();
          return { top: r.top + y, height: r.height };
        });
        window.scrollTo(0, stripY(boxes, pl.page, pl.ratio));
      } else if (p.section === "EB") {
        const paras = Array.from(textRef.current?.querySelectorAll("p") ?? []);
        const t = textTarget(paras.map((el) => el.firstChild?.textContent?.length ?? 0), pl.offset);
        if (t) {
          const range = document.createRange();
          range.setStart(paras[t.i].firstChild!, t.k);
          range.setEnd(paras[t.i].firstChild!, t.k + 1);
          window.scrollTo(0, range.getBoundingClientRect().top + y);
        } else {
          window.scrollTo(0, pl.ratio * (document.documentElement.scrollHeight - window.innerHeight));
        }
      }
    },
    [p.section],
  );
  const laidOut = ready && (p.section !== "EB" || texts.length > 0);
  useEffect(() => {
    if (restored || !laidOut) return;
    const pl = place && place.no === no ? place : null;
    if (!pl || p.section === "CM") {
      setRestored(true);
      return;
    }
    // after React committed the pages and the browser laid them out
    const raf = requestAnimationFrame(() => {
      restore(pl);
      setRestored(true);
    });
    return () => cancelAnimationFrame(raf);
  }, [restored, laidOut, place, no, p.section, restore]);
  useEffect(() => {
    if (!restored) return;
    record();
    let raf = 0;
    const onScroll = () => {
      if (!raf)
        raf = requestAnimationFrame(() => {
          raf = 0;
          record();
        });
    };
    const away = () => {
      if (document.visibilityState === "hidden") sync.flush();
    };
    const hide = () => sync.flush();
    window.addEventListener("scroll", onScroll, { passive: true });
    window.addEventListener("pagehide", hide);
    document.addEventListener("visibilitychange", away);
    return () => {
      cancelAnimationFrame(raf);
      window.removeEventListener("scroll", onScroll);
      window.removeEventListener("pagehide", hide);
      document.removeEventListener("visibilitychange", away);
    };
  }, [restored, record, sync]);
  // Leaving the volume (next volume, the list) sends what is pending.
  useEffect(() => () => sync.flush(), [sync]);

  // A narrower strip is shorter: keep the panel on screen while it changes.
  const changeWidth = (v: number) => {
    const pl = measure();
    setWidth(v);
    setLocal(LOCAL.webtoonWidth, String(v));
    requestAnimationFrame(() => restore(pl));
  };

  const toggleQv = () => {
    setQv(!qv);
    setQuickView(!qv);
  };

  const endPanel = (
    <div className={s.end} data-testid="viewer-end">
      {manifest === null && (
        <p className={s.endNote} data-testid="content-pending">
          이 회차의 내용을 준비하고 있습니다. 잠시 후 다시 열어 주세요.
        </p>
      )}
      {!full && (
        <>
          <p className={s.endNote} data-testid="preview-note">
            {serviceOff ? "서비스가 중지되어 전체 보기를 할 수 없습니다." : user.isLogin ? "미리보기가 끝났습니다." : "로그인하면 이어서 볼 수 있습니다."}
          </p>
          {!serviceOff && (
            <Link className={s.endBtn} to={user.isLogin ? `/${sectionPath(p.section)}/detail/${p.pid}?tab=V` : `/nuxgin?url=${encodeURIComponent(`/viewer?pid=${p.pid}&no=${no}`)}`}>
              {user.isLogin ? "구매하고 이어보기" : "로그인"}
            </Link>
          )}
        </>
      )}
      {nextNo !== null && (
        <button type="button" className={s.endBtn} onClick={() => go("N")} data-testid="next-vol">
          다음 화 보기
        </button>
      )}
      <button type="button" className={s.btn} onClick={() => go("A")}>
        목록으로
      </button>
    </div>
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

      <main onClick={() => p.section !== "CM" && setChrome((c) => !c)}>
        {p.section === "WT" && (
          <div className={`${s.strip} ${s.stripTop}`} style={{ width: `${width}%` }} ref={stripRef}>
            {manifest &&
              Array.from({ length: shown }, (_, i) => (
                  <img
                    key={`${no}-${i}`}
                    className={s.stripImg}
                    srcSet={srcSet(manifest, i + 1, token)}
                    sizes={`${width}vw`}
                    src={pageURL(manifest, i + 1, fallbackWidth(manifest.pages[i]), token)}
                    alt={`${i + 1}쪽`}
                    width={manifest.pages[i].w}
                    height={manifest.pages[i].h}
                    loading={i + 1 <= eagerUntil(curPage, shown) ? "eager" : "lazy"}
                    fetchPriority={i === 0 ? "high" : undefined}
                    data-testid="page"
                  />
              ))}
            {ready && endPanel}
          </div>
        )}
        {p.section === "CM" && ready && (
          <>
            {cur < groups.length ? (
              <div className={s.pageWrap} data-testid="comic-page" data-page={cur}>
                {manifest &&
                  (groups[cur] ?? []).map((n) => (
                    <img
                      key={n}
                      className={`${s.pageImg} ${s.pageFit({ spread: groups[cur].length === 2 })}`}
                      srcSet={srcSet(manifest, n, token)}
                      sizes={groups[cur].length === 2 ? "50vw" : "100vw"}
                      src={pageURL(manifest, n, fallbackWidth(manifest.pages[n - 1]), token)}
                      alt={`${n}쪽`}
                      width={manifest.pages[n - 1].w}
                      height={manifest.pages[n - 1].h}
                      data-testid="page"
                    />
                  ))}
                <button type="button" className={s.tapLeft} aria-label="이전 쪽" onClick={() => turn(-1)} />
                <button type="button" className={s.tapRight} aria-label="다음 쪽" onClick={() => turn(1)} />
                <button type="button" className={s.tapMenu} aria-label="메뉴" onClick={() => setChrome((c) => !c)} />
              </div>
            ) : (
              <div className={s.endTop}>{endPanel}</div>
            )}
          </>
        )}
        {p.section === "EB" && (
          <div className={s.text} style={{ fontSize: font.size, lineHeight: font.line }} data-testid="novel-text" ref={textRef}>
            {texts.map((t, i) => (
              // sanitized twice: by the writer (bluemonday) and by sanitizeChunk here
              <div key={i} className={s.chunk} data-testid="chunk" dangerouslySetInnerHTML={{ __html: t }} />
            ))}
            {ready && (texts.length > 0 || manifest === null) && endPanel}
          </div>
        )}
      </main>

      <div className={`${s.bar} ${s.bottom} ${chrome || settings ? "" : s.hiddenBottom}`}>
        {settings && (
          <div className={s.settings} data-testid="viewer-settings">
            {p.section === "WT" && (
              <>
                <label className={s.label}>
                  폭
                  <input className={s.range} type="range" min={50} max={100} step={5} value={width} onChange={(e) => changeWidth(Number(e.target.value))} aria-label="화면 폭" />
                </label>
                <label className={s.label}>
                  자동 스크롤
                  <input className={s.range} type="range" min={0} max={AUTO_SPEEDS.length - 1} value={speed} onChange={(e) => setSpeed(Number(e.target.value))} aria-label="자동 스크롤 속도" />
                </label>
              </>
            )}
            {p.section === "EB" && (
              <>
                <label className={s.label}>
                  글자 크기
                  <input className={s.range} type="range" min={13} max={26} value={font.size} onChange={(e) => { const f = { ...font, size: Number(e.target.value) }; setFont(f); setLocal(LOCAL.novelFont, JSON.stringify(f)); }} aria-label="글자 크기" />
                </label>
                <label className={s.label}>
                  줄 간격
                  <input className={s.range} type="range" min={1.3} max={2.4} step={0.1} value={font.line} onChange={(e) => { const f = { ...font, line: Number(e.target.value) }; setFont(f); setLocal(LOCAL.novelFont, JSON.stringify(f)); }} aria-label="줄 간격" />
                </label>
              </>
            )}
            <label className={s.label}>
              <input type="checkbox" checked={qv} onChange={toggleQv} aria-label="바로 보기" /> 바로 보기 (구매 후 바로 열기)
            </label>
            {full && manifest && user.authInfo && <SaveOffline detail={detail} no={no} manifest={manifest} auth={auth!} uid={user.authInfo.uid} />}
          </div>
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
