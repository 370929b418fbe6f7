import { useCallback, useEffect, useMemo, useRef, useState } from "react";
import { Link, useNavigate } from "react-router";
import { http } from "~/utils/api";
import { isHttpError } from "~/utils/http";
import { sectionPath } from "~/utils/layout";
import { API, downloadAuth, type Detail, type DownloadAuth } from "~/utils/screens/api";
import { getLocal, LOCAL, quickView, setLocal, setQuickView } from "~/utils/screens/prefs";
import { useUser } from "~/utils/userStore";
import { loadPlace, savePlace, spreads, targetVol, visiblePages, type Direction } from "./nav";
import * as s from "./viewer.css";

export type ViewerProps = { detail: Detail; no: number; resumeRatio?: number; resumePage?: number };

const AUTO_SPEEDS = [0, 40, 80, 140, 220]; // px per second

/** The web viewer: webtoon strip, comic pages (spreads on wide screens), novel text. */
export function Viewer({ detail, no, resumeRatio, resumePage }: ViewerProps) {
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
  const [page, setPage] = useState(resumePage ?? 0);
  const [texts, setTexts] = useState<string[]>([]);
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
      .then((a) => !cancel && setAuth(a))
      .catch(() => {})
      .finally(() => !cancel && setAuthDone(true));
    // The reader's last volume goes to the writer (recently viewed): any device resumes there.
    http(`${API}/users/recent`, { method: "POST", json: { pid: p.pid, vol: no } }).catch(() => {});
    return () => {
      cancel = true;
    };
  }, [p.pid, no, user.isLogin, serviceOff]);

  const full = !!auth?.isAuth && !!auth.token;
  const count = visiblePages(full, vol.pages, vol.previewPages);
  const ext = p.section === "EB" ? "txt" : "svg";
  const src = useCallback((n: number) => `${vol.contentBase}/${n}.${ext}${full ? `?t=${encodeURIComponent(auth!.token!)}` : ""}`, [vol.contentBase, ext, full, auth]);

  // Novel text pages.
  useEffect(() => {
    if (p.section !== "EB" || !authDone) return;
    let cancel = false;
    Promise.all(Array.from({ length: count }, (_, i) => fetch(src(i + 1)).then((r) => (r.ok ? r.text() : ""))))
      .then((t) => !cancel && setTexts(t))
      .catch(() => {});
    return () => {
      cancel = true;
    };
  }, [p.section, authDone, count, src]);

  // Wide screens show comic spreads.
  useEffect(() => {
    const mq = window.matchMedia("(min-width: 720px) and (orientation: landscape)");
    const on = () => setWide(mq.matches);
    on();
    mq.addEventListener("change", on);
    return () => mq.removeEventListener("change", on);
  }, []);

  // Resume the exact scroll place once the pages are in.
  const resumed = useRef(false);
  useEffect(() => {
    if (resumed.current || !authDone || resumeRatio === undefined || p.section === "CM") return;
    if (p.section === "EB" && texts.length === 0) return;
    resumed.current = true;
    const go = () => window.scrollTo(0, resumeRatio * (document.documentElement.scrollHeight - window.innerHeight));
    requestAnimationFrame(() => requestAnimationFrame(go));
    setTimeout(go, 400);
  }, [authDone, resumeRatio, p.section, texts.length]);

  // Keep the place: scroll ratio (strip, text) or page (comic).
  useEffect(() => {
    const save = () => {
      const h = document.documentElement.scrollHeight - window.innerHeight;
      savePlace(p.pid, { no, ratio: h > 0 ? window.scrollY / h : 0, page, at: Date.now() });
    };
    save();
    let t: ReturnType<typeof setTimeout> | undefined;
    const onScroll = () => {
      clearTimeout(t);
      t = setTimeout(save, 150);
    };
    window.addEventListener("scroll", onScroll, { passive: true });
    window.addEventListener("pagehide", save);
    return () => {
      clearTimeout(t);
      window.removeEventListener("scroll", onScroll);
      window.removeEventListener("pagehide", save);
    };
  }, [p.pid, no, page]);

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

  // Preload the next volume's first page once the reader is near the end.
  useEffect(() => {
    if (nextNo === null || p.section === "EB") return;
    const nv = detail.volList.find((v) => v.no === nextNo);
    if (!nv) return;
    const img = new Image();
    img.src = `${nv.contentBase}/1.svg`;
  }, [nextNo, detail.volList, p.section]);

  // Comic pages: keys and preloading of the next two pages.
  const groups = useMemo(() => spreads(count, wide), [count, wide]);
  const cur = Math.min(page, Math.max(0, groups.length - 1));
  useEffect(() => {
    if (p.section !== "CM") return;
    for (const n of groups.slice(cur + 1, cur + 3).flat()) {
      const img = new Image();
      img.src = src(n);
    }
    const k = (e: KeyboardEvent) => {
      if (e.key === "ArrowRight") setPage((x) => Math.min(x + 1, groups.length));
      if (e.key === "ArrowLeft") setPage((x) => Math.max(x - 1, 0));
    };
    window.addEventListener("keydown", k);
    return () => window.removeEventListener("keydown", k);
  }, [p.section, groups, cur, src]);

  const toggleQv = () => {
    setQv(!qv);
    setQuickView(!qv);
  };

  const endPanel = (
    <div className={s.end} data-testid="viewer-end">
      {!full && (
        <>
          <p style={{ fontSize: 14 }} data-testid="preview-note">
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
        {!full && authDone && <span style={{ fontSize: 11, opacity: 0.8 }}>미리보기</span>}
        <button type="button" className={s.btn} onClick={() => setSettings((x) => !x)} aria-expanded={settings} aria-label="보기 설정">
          ⚙
        </button>
      </div>

      <main onClick={() => p.section !== "CM" && setChrome((c) => !c)}>
        {p.section === "WT" && (
          <div className={s.strip} style={{ width: `${width}%`, paddingTop: 48 }}>
            {authDone &&
              Array.from({ length: count }, (_, i) => (
                <img key={`${no}-${i}-${full}`} className={s.stripImg} src={src(i + 1)} alt={`${i + 1}쪽`} width={720} height={1024} loading={i < 3 ? "eager" : "lazy"} data-testid="page" />
              ))}
            {authDone && endPanel}
          </div>
        )}
        {p.section === "CM" && authDone && (
          <>
            {cur < groups.length ? (
              <div className={s.pageWrap} data-testid="comic-page" data-page={cur}>
                {(groups[cur] ?? []).map((n) => (
                  <img key={n} className={s.pageImg} style={{ maxWidth: groups[cur].length === 2 ? "50%" : "100%" }} src={src(n)} alt={`${n}쪽`} width={720} height={1024} data-testid="page" />
                ))}
                <button type="button" className={s.tapLeft} aria-label="이전 쪽" onClick={() => setPage(Math.max(0, cur - 1))} />
                <button type="button" className={s.tapRight} aria-label="다음 쪽" onClick={() => setPage(cur + 1)} />
                <button type="button" style={{ position: "absolute", left: "30%", right: "30%", top: 0, bottom: 0, border: 0, background: "transparent" }} aria-label="메뉴" onClick={() => setChrome((c) => !c)} />
              </div>
            ) : (
              <div style={{ paddingTop: 80 }}>{endPanel}</div>
            )}
          </>
        )}
        {p.section === "EB" && (
          <div className={s.text} style={{ fontSize: font.size, lineHeight: font.line }} data-testid="novel-text">
            {texts.map((t, i) => (
              <p key={i} style={{ marginBottom: "1.2em" }}>
                {t}
              </p>
            ))}
            {authDone && texts.length > 0 && endPanel}
          </div>
        )}
      </main>

      <div className={`${s.bar} ${s.bottom} ${chrome || settings ? "" : s.hiddenBottom}`}>
        {settings && (
          <div style={{ display: "flex", flexWrap: "wrap", gap: 8, width: "100%", paddingBottom: 6 }} data-testid="viewer-settings">
            {p.section === "WT" && (
              <>
                <label className={s.label}>
                  폭
                  <input className={s.range} type="range" min={50} max={100} step={5} value={width} onChange={(e) => { const v = Number(e.target.value); setWidth(v); setLocal(LOCAL.webtoonWidth, String(v)); }} aria-label="화면 폭" />
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
          </div>
        )}
        <button type="button" className={s.btn} disabled={prevNo === null} onClick={() => go("P")} data-testid="prev-vol">
          ‹ 이전화
        </button>
        <span style={{ flex: 1, textAlign: "center", fontSize: 12 }}>
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
