import { useCallback, useEffect, useLayoutEffect, useMemo, useRef, useState } from "react";
import { Link, useNavigate, useSearchParams } from "react-router";
import { ProductGrid } from "~/components/product/ProductGrid";
import { Section } from "~/components/Section/Section";
import { useShell } from "~/shell/ShellProvider";
import { DIBS_TOAST_MS } from "~/shell/timing";
import { sectionPath } from "~/utils/layout";
import { authorLine } from "~/utils/product";
import {
  detailState,
  getCoupons,
  getStatus,
  getVolumes,
  purchase,
  useCoupon,
  type BuyType,
  type CouponInfo,
  type CouponKind,
  type Detail as DetailT,
  type SalesStatus,
  type Vol,
} from "~/utils/screens/api";
import { alarmPush, askPermission, browserPushEnv, pushMessage } from "~/utils/webPush";
import { addDibs, COPIED, DIBS_ADDED, DIBS_REMOVED, listDibs, removeDibs, setAlarm } from "~/utils/screens/dibs";
import { benefitLine, countdown, viewCount, won } from "~/utils/screens/format";
import { detailArrival, detailContext, detailHint, quickView, saveDetailContext, saveDetailHint, setVolOrder, volOrder, type VolOrder } from "~/utils/screens/prefs";
import { applyWallet, loadSideInfo, useUser } from "~/utils/userStore";
import { previewLoginFirst } from "~/components/viewer/nav";
import { currentDevice, shownMoney } from "~/utils/device";
import { volumeThumb } from "~/components/viewer/media";
import { browserAppOpenDeps, openAppFromWeb } from "~/shell/appOpen";
import { alarmState } from "./alarmState";
import { mainButton } from "./mainButton";
import { copyWithSelection, shareLink } from "./share";
import { Reviews } from "./Reviews";
import { ensureMoney as spendMoney } from "./money";
import { canRead, entitlement, UNDO_MS, unlockOptions, type UnlockOption } from "./unlock";
import * as s from "./detail.css";

type Tab = "I" | "V" | "R";
const TABS: { key: Tab; label: string }[] = [
  { key: "I", label: "작품 정보" },
  { key: "V", label: "회차" },
  { key: "R", label: "리뷰" },
];
const TAB_KEYS = TABS.map((t) => t.key);

export const viewerHref = (pid: string, no: number) => `/viewer?pid=${encodeURIComponent(pid)}&no=${no}`;

export function Detail({ detail }: { detail: DetailT }) {
  const p = detail.prodInfo;
  const shell = useShell();
  const user = useUser();
  const navigate = useNavigate();
  const [sp, setSp] = useSearchParams();
  const named = TABS.find((t) => t.key === sp.get("tab"))?.key ?? null;
  const tab: Tab = named ?? "I";
  // Returning to this work keeps its tab and scroll (session key detailContext)
  // and marks the volume last opened from it (detailHint); another work is
  // left to the router (detailArrival). Kept as the reader scrolls or switches tabs.
  const [hint] = useState(() => detailHint(p.pid));
  const restore = useRef(detailContext(p.pid));
  // The place is kept from the detail's own top, not the document's: the top
  // banner above it (Android web) comes 50 ms after the layout mounts, as on
  // the way back from the viewer, and may come after the restore.
  const root = useRef<HTMLElement>(null);
  const pageTop = () => (root.current ? root.current.getBoundingClientRect().top + window.scrollY : 0);
  useLayoutEffect(() => {
    const arrival = detailArrival(restore.current, named, TAB_KEYS);
    if (!arrival) {
      restore.current = null;
      return;
    }
    if ("tab" in arrival) {
      const n = new URLSearchParams(sp);
      n.set("tab", arrival.tab);
      setSp(n, { replace: true, preventScrollReset: true });
      return; // scrolled once the tab is drawn
    }
    // The page may still grow (pictures, the member's status): scroll once it
    // is tall enough, trying for about a second; the router's own reset to
    // the top on arrival comes first.
    let tries = 0;
    let frame = 0;
    const step = () => {
      const y = Math.max(0, pageTop() + arrival.scroll);
      const room = document.documentElement.scrollHeight - window.innerHeight;
      if (room >= y || ++tries > 60) {
        restore.current = null;
        window.scrollTo(0, y);
        return;
      }
      frame = requestAnimationFrame(step);
    };
    frame = requestAnimationFrame(step);
    return () => cancelAnimationFrame(frame);
  }, [named, sp, setSp]);
  // A layout effect, so the listener goes in the commit that takes the page
  // away: the router scrolls the next page (the viewer) to the top in that
  // commit's layout effects, and a passive listener still attached then
  // saved that top as this work's place (the restore then "worked", to 0).
  useLayoutEffect(() => {
    let frame = 0;
    const save = () => {
      if (restore.current) return; // not the reader's scroll yet
      cancelAnimationFrame(frame);
      frame = requestAnimationFrame(() => saveDetailContext(p.pid, { tab, scroll: window.scrollY - pageTop() }));
    };
    if (!restore.current) save();
    window.addEventListener("scroll", save, { passive: true });
    return () => {
      cancelAnimationFrame(frame);
      window.removeEventListener("scroll", save);
    };
  }, [p.pid, tab]);
  const state = detailState(detail.header.code);
  // Service or payment off (201/202/203): nothing is sold, so no purchase is offered (seed §4).
  const selling = state === "ok";
  const [order, setOrder] = useState<VolOrder>(() => volOrder(p.isSpecialPriceSet));
  const [vols, setVols] = useState<Vol[]>(() => (order === "latest" ? [...detail.volList].reverse() : detail.volList));
  const [status, setStatus] = useState<SalesStatus | null>(null);
  const [coupons, setCoupons] = useState<CouponInfo | null>(null);
  const [dibsIdx, setDibsIdx] = useState<number | null>(null);
  const [authorDibs, setAuthorDibs] = useState<Map<string, number>>(new Map());
  const [alarmClicked, setAlarmOn] = useState<boolean | null>(null);
  const [sheet, setSheet] = useState<Vol | null>(null);
  const [pending, setPending] = useState<{ label: string; cancel: () => void } | null>(null);
  const [now, setNow] = useState(() => Date.now());
  const uid = user.authInfo?.uid ?? "";
  const allNos = useMemo(() => detail.volList.map((v) => v.no).sort((a, b) => a - b), [detail.volList]);
  const sales = detail.salesInfo;
  const alarm = alarmState(alarmClicked, status, p.isAlarm);

  const refresh = useCallback(async () => {
    if (!user.isLogin) return;
    const [st, cp] = await Promise.all([getStatus(p.pid).catch(() => null), getCoupons(p.pid).catch(() => null)]);
    setStatus(st);
    setCoupons(cp);
    setNow(Date.now());
  }, [user.isLogin, p.pid]);

  useEffect(() => {
    void refresh();
    if (!user.isLogin || !uid) return;
    // The unlock sheet shows the balance from the one side info.
    void loadSideInfo();
    const who = { adultLevel: user.adultLevel, channel: currentDevice().channel };
    listDibs(uid, "prod", who).then((m) => m && setDibsIdx(m.get(p.pid) ?? null));
    listDibs(uid, "author", who).then((m) => m && setAuthorDibs(m));
  }, [refresh, user.isLogin, uid, p.pid, user.adultLevel]);

  // The wait-for-free countdown ticks while the coupon is charging.
  const wait = coupons?.WCPInfo?.waitTime ?? 0;
  const [waitLeft, setWaitLeft] = useState(wait);
  useEffect(() => {
    setWaitLeft(wait);
    if (wait <= 0) return;
    const started = Date.now();
    const t = setInterval(() => {
      const left = wait - Math.floor((Date.now() - started) / 1000);
      setWaitLeft(left);
      if (left <= 0) {
        clearInterval(t);
        void refresh();
      }
    }, 1000);
    return () => clearInterval(t);
  }, [wait, refresh]);

  const changeOrder = async (o: VolOrder) => {
    setOrder(o);
    setVolOrder(o);
    const a = await getVolumes(p.pid, o).catch(() => null);
    setVols(a ? a.volList : o === "latest" ? [...detail.volList].reverse() : detail.volList);
  };

  // Member-only actions start with the shell's one check, shell.requireMember
  // (a guest in the app goes to native login).
  const toggleDibs = async () => {
    if (!shell.requireMember()) return;
    if (dibsIdx) {
      if (await removeDibs(uid, "prod", dibsIdx)) {
        setDibsIdx(null);
        shell.snack(DIBS_REMOVED, DIBS_TOAST_MS);
      }
    } else {
      const idx = await addDibs(uid, "prod", p.pid, p.section);
      if (idx) {
        setDibsIdx(idx);
        shell.snack(DIBS_ADDED, DIBS_TOAST_MS);
      }
    }
  };
  const toggleAuthor = async (authorId: number) => {
    if (!shell.requireMember()) return;
    const key = String(authorId);
    const idx = authorDibs.get(key);
    if (idx) {
      if (await removeDibs(uid, "author", idx)) {
        setAuthorDibs((m) => {
          const n = new Map(m);
          n.delete(key);
          return n;
        });
        shell.snack(DIBS_REMOVED, DIBS_TOAST_MS);
      }
    } else {
      const n = await addDibs(uid, "author", key);
      if (n) {
        setAuthorDibs((m) => new Map(m).set(key, n));
        shell.snack(DIBS_ADDED, DIBS_TOAST_MS);
      }
    }
  };
  const toggleAlarm = async () => {
    if (!shell.requireMember()) return;
    // The permission prompt belongs to this click (never to page load), so
    // it starts before anything is awaited.
    const env = browserPushEnv();
    const permission = alarm ? null : askPermission(env);
    const v = await setAlarm(uid, p.pid, !alarm);
    if (v === null) return;
    setAlarmOn(v);
    const problem = pushMessage(await alarmPush(p.pid, v, permission, env));
    shell.toast(problem ?? (v ? "새 회차 알림을 받습니다." : "새 회차 알림을 끕니다."), problem ? 3000 : 2000);
  };
  const share = async () => {
    const url = `${window.location.origin}/${sectionPath(p.section)}/detail/${p.pid}`;
    if ((await shareLink(navigator, { url, title: p.title }, copyWithSelection)) === "copied") shell.toast(COPIED, 2000);
  };

  // A mobile browser may open this work in the app (seed §4, §9): Android
  // falls back to its store, iOS asks with the app-only message.
  const dev = currentDevice();
  const web = dev.isApp ? null : dev;
  const openInApp = () =>
    openAppFromWeb(
      `/${sectionPath(p.section)}/detail/${p.pid}`,
      dev,
      browserAppOpenDeps((content) => shell.confirm({ content, leftLabel: "취소", rightLabel: "앱스토어로 이동" })),
    );

  const openViewer = (no: number) => {
    saveDetailHint(p.pid, no);
    navigate(viewerHref(p.pid, no));
  };

  /** Money: confirm, check the balance (charge path when short), then commit after the undo window. */
  const ensureMoney = (price: number, what: string) =>
    spendMoney({ shell, navigate }, { price, title: what, returnTo: `/${sectionPath(p.section)}/detail/${p.pid}?tab=V` });

  /** Delays the commit so an accidental unlock can be undone (the writer has no cancel for purchases or coupon uses). */
  const withUndo = (label: string, commit: () => Promise<void>) =>
    new Promise<void>((resolve) => {
      const t = setTimeout(async () => {
        setPending(null);
        await commit();
        resolve();
      }, UNDO_MS);
      setPending({
        label,
        cancel: () => {
          clearTimeout(t);
          setPending(null);
          shell.toast("취소되었습니다.", 1500);
          resolve();
        },
      });
    });

  // The unlock sheet is on the modal stack: Back closes it and leaves the page
  // (seed §4). What it starts waits until its history entry is gone, so a
  // navigation or a popup begins from the page's own entry.
  const openSheet = (v: Vol) => {
    setSheet(v);
    shell.openModal(UNLOCK_SHEET, () => setSheet(null));
  };
  const closeSheet = () => {
    setSheet(null);
    return shell.closeModal(UNLOCK_SHEET);
  };

  const choose = async (v: Vol, o: UnlockOption) => {
    await closeSheet();
    if (o.kind === "free" || o.kind === "owned" || o.kind === "rented") return openViewer(v.no);
    if (!shell.requireMember()) return;
    if (state !== "ok") return shell.toast(state === "paymentOff" ? "지금은 결제할 수 없는 작품입니다." : "서비스가 중지된 작품입니다.");
    const money = o.kind === "rent" || o.kind === "buy";
    if (money && !(await ensureMoney(o.price ?? 0, `${v.title} ${o.label}`))) return;
    await withUndo(`${v.title}을 ${o.label}(으)로 엽니다`, async () => {
      try {
        if (money || o.kind === "ticket") {
          const bt: BuyType = o.kind === "rent" ? "R" : o.kind === "buy" ? "B" : "T";
          applyWallet((await purchase(p.pid, bt, [v.no])).wallet);
        } else {
          await useCoupon(p.pid, v.no, o.kind as CouponKind);
        }
        await refresh();
        if (quickView()) openViewer(v.no);
        else shell.toast(`${v.title}을 열었습니다.`);
      } catch (e) {
        shell.toast((e as Error).message || "처리하지 못했습니다.");
        void refresh();
      }
    });
  };

  const buyAll = async (bt: "B" | "R") => {
    if (!shell.requireMember()) return;
    if (state !== "ok") return shell.toast(state === "paymentOff" ? "지금은 결제할 수 없는 작품입니다." : "서비스가 중지된 작품입니다.");
    const left = bt === "B" ? (status?.buyLeftPrice ?? sales?.buy.leftPrice ?? 0) : (status?.rentLeftPrice ?? sales?.rental.leftPrice ?? 0);
    const cnt = bt === "B" ? (status?.buyLeftCount ?? sales?.buy.leftCount ?? 0) : (status?.rentLeftCount ?? sales?.rental.leftCount ?? 0);
    if (cnt <= 0) return shell.toast(bt === "B" ? "이미 모든 회차를 소장했습니다." : "대여할 회차가 없습니다.");
    if (!(await ensureMoney(left, `${cnt}개 회차 전체 ${bt === "B" ? "소장" : "대여"}`))) return;
    await withUndo(`${cnt}개 회차를 ${bt === "B" ? "소장" : "대여"}합니다`, async () => {
      try {
        applyWallet((await purchase(p.pid, bt, "all")).wallet);
        await refresh();
        shell.toast(`${cnt}개 회차를 ${bt === "B" ? "소장" : "대여"}했습니다.`);
      } catch (e) {
        shell.toast((e as Error).message || "처리하지 못했습니다.");
      }
    });
  };

  const optionsFor = (v: Vol) =>
    unlockOptions({ vol: v, status, coupons, allNos, isRental: !!sales?.isRental, isBuy: !!sales?.isBuy, isTicket: !!sales?.isTicket, tickets: coupons?.ticketCount ?? 0, jumpingWork: !!p.jumpingPass, now });

  const tapVol = (v: Vol) => {
    const o = optionsFor(v);
    if (canRead(o)) return openViewer(v.no);
    if (state === "serviceOff") return shell.toast("서비스가 중지된 작품입니다.");
    openSheet(v);
  };

  const main = mainButton(status?.recentViewVol, detail.recentViewVol, p.unit);
  const mainVol = main ? detail.volList.find((v) => v.no === main.no) : undefined;
  const benefits = benefitLine({
    freeCoupon: !!coupons?.WCPInfo || (detail.prodInfo as { waitForFree?: boolean }).waitForFree,
    freeVolCnt: sales?.buy.freeVolCnt,
    cashbackRate: sales?.buy.cashbackRate,
    discountRate: sales?.buy.discountRate,
    limitedRental: !!sales?.rental.term && sales.rental.available && !sales.buy.available,
  });

  return (
    <article ref={root} aria-label={p.title} data-testid="detail">
      <header className={s.hero}>
        <img className={s.heroBg} src={p.thumbUrl} alt="" aria-hidden="true" width={360} height={200} />
        <div className={s.heroInner}>
          <div className={s.cover}>
            <img src={p.thumbUrl} alt={`${p.title} 표지`} width={108} height={144} />
          </div>
          <div className={s.heroText}>
            <h1 className={s.title}>{p.title}</h1>
            <p className={s.sub}>{authorLine(p.authors)}</p>
            <p className={s.stats}>
              <span data-testid="view-count">조회 {viewCount(p.viewCnt)}</span>
              {detail.metric && <span>♥ {detail.metric.zzimCount.toLocaleString("en-US")}</span>}
              {p.updateCycle && <span>{p.updateCycle}</span>}
              {p.flagEnd === "Y" && p.updateCycle !== "완결" && <span>완결</span>}
            </p>
            <div className={s.chips}>
              {p.age >= 19 && <span className={s.chip}>19</span>}
              {p.isOriginal && <span className={s.chip}>오리지널</span>}
              {p.isMonopoly && <span className={s.chip}>독점</span>}
              {p.category2 && <span className={s.chip}>{p.category2}</span>}
              {benefits.map((b) => (
                <span key={b} className={`${s.chip} ${s.benefit}`} data-testid="benefit">
                  {b}
                </span>
              ))}
            </div>
          </div>
        </div>
      </header>

      {state !== "ok" && (
        <p className={`${s.banner} ${s.bannerWarn}`} role="alert" style={{ marginTop: 12 }} data-testid="state-banner">
          {state === "paymentOff" ? "지금은 결제가 중지된 작품입니다. 무료 회차와 보유한 회차만 볼 수 있습니다." : "서비스가 중지된 작품입니다. 전체 보기를 할 수 없습니다."}
        </p>
      )}

      <div className={s.actions}>
        {/* A toggle keeps its name, the label shown, and says its state by aria-pressed
            (a name "찜하기" / "찜 해제" over the label "찜" was axe's label-content-name-mismatch). */}
        <button type="button" className={`${s.action} ${dibsIdx ? s.actionOn : ""}`} onClick={toggleDibs} aria-pressed={!!dibsIdx}>
          <span aria-hidden="true">{dibsIdx ? "♥" : "♡"}</span>찜
        </button>
        <button type="button" className={`${s.action} ${alarm ? s.actionOn : ""}`} onClick={toggleAlarm} aria-pressed={alarm} aria-label="알림">
          <Bell on={alarm} />
          알림
        </button>
        <button type="button" className={s.action} onClick={share} aria-label="공유">
          <span aria-hidden="true">↗</span>공유
        </button>
        {web && (web.isAndroid || web.isIOS) && (
          <button type="button" className={s.action} onClick={openInApp} data-testid="open-in-app">
            <span aria-hidden="true">⤴</span>앱에서 보기
          </button>
        )}
      </div>

      {coupons?.WCPInfo && (
        <p className={`${s.banner} ${s.bannerInfo}`} style={{ marginTop: 12 }} data-testid="wff">
          <strong>기다리면 무료</strong> ·{" "}
          {waitLeft > 0 ? <>다음 이용권까지 {countdown(waitLeft)}</> : <>지금 1화 무료로 볼 수 있어요</>}
          {coupons.RCPInfo.count - coupons.RCPInfo.usedCnt > 0 && <> · 열람 쿠폰 {coupons.RCPInfo.count - coupons.RCPInfo.usedCnt}장</>}
          {coupons.PCPInfo.jumpingCount > 0 && <> · 점핑패스 {coupons.PCPInfo.jumpingCount}장</>}
        </p>
      )}

      <div className={s.tabs} role="tablist" aria-label="작품 메뉴" style={{ marginTop: 8 }}>
        {TABS.map((t) => (
          <button
            key={t.key}
            type="button"
            role="tab"
            aria-selected={tab === t.key}
            className={tab === t.key ? `${s.tab} ${s.tabOn}` : s.tab}
            onClick={() => {
              const n = new URLSearchParams(sp);
              n.set("tab", t.key);
              setSp(n, { replace: true, preventScrollReset: true });
            }}
          >
            {t.label}
            {t.key === "V" ? ` ${p.volCnt}` : t.key === "R" && detail.metric ? ` ${detail.metric.reviewCount}` : ""}
          </button>
        ))}
      </div>

      {tab === "I" && (
        <div>
          <div className={s.block}>
            <p className={s.summary}>{p.summary}</p>
          </div>
          <div className={s.block}>
            <div className={s.infoGrid}>
              <span className={s.infoKey}>작가</span>
              <span>
                {p.authors.map((a) => (
                  <button
                    key={a.authorId}
                    type="button"
                    className={s.small}
                    style={{ marginRight: 6, marginBottom: 4 }}
                    onClick={() => toggleAuthor(a.authorId)}
                    aria-pressed={authorDibs.has(String(a.authorId))}
                    aria-label={`작가 ${a.authorName} 찜`}
                  >
                    {a.authorName} {authorDibs.has(String(a.authorId)) ? "♥" : "♡"}
                  </button>
                ))}
              </span>
              <span className={s.infoKey}>장르</span>
              <span>{p.category2 || p.genreCode}</span>
              <span className={s.infoKey}>출판사</span>
              <span>{p.provider}</span>
              <span className={s.infoKey}>이용가</span>
              <span>{p.age === 0 ? "전체 이용가" : `${p.age}세 이용가`}</span>
            </div>
          </div>
          {detail.keywordTag.length > 0 && (
            <div className={s.block}>
              <div className={s.chips}>
                {detail.keywordTag.map((k) =>
                  k.id ? (
                    <Link key={k.name} to={`/keyword?id=${k.id}`} className={s.chip}>
                      #{k.name}
                    </Link>
                  ) : (
                    <span key={k.name} className={s.chip}>
                      #{k.name}
                    </span>
                  ),
                )}
              </div>
            </div>
          )}
          {detail.notices.map((n) => (
            <details key={n.id} className={s.block}>
              <summary style={{ fontWeight: 700, fontSize: 14 }}>📢 {n.title}</summary>
              <p className={s.summary}>{n.body}</p>
            </details>
          ))}
          {detail.related.map((r) => (
            <Section key={r.code} title={r.title}>
              <ProductGrid items={r.list.slice(0, 6)} label={r.title} />
            </Section>
          ))}
        </div>
      )}

      {tab === "V" && (
        <div>
          <div className={s.volHead}>
            <span className={s.volCount}>
              총 {p.volCnt}
              {p.unit}
            </span>
            {!p.isSpecialPriceSet && (
              <button type="button" className={s.small} onClick={() => changeOrder(order === "old" ? "latest" : "old")} data-testid="vol-order">
                {order === "old" ? "첫 화부터" : "최신 화부터"}
              </button>
            )}
            {selling && sales?.isRental && (
              <button type="button" className={s.small} onClick={() => buyAll("R")}>
                전체 대여
              </button>
            )}
            {selling && sales?.isBuy && (
              <button type="button" className={s.small} onClick={() => buyAll("B")}>
                전체 소장
              </button>
            )}
          </div>
          <ul className={s.vols} aria-label="회차 목록">
            {vols.map((v) => {
              const e = v.isFree ? "free" : entitlement(v.no, status, now);
              return (
                <li key={v.no}>
                  <button
                    type="button"
                    className={s.vol}
                    onClick={() => tapVol(v)}
                    data-testid="vol"
                    data-no={v.no}
                    aria-current={v.no === hint ? "true" : undefined}
                  >
                    <div className={s.volThumb}>
                      <img src={volumeThumb(v, p.thumbUrl)} alt="" loading="lazy" width={72} height={45} />
                    </div>
                    <div className={s.volBody}>
                      <p className={s.volTitle}>{v.title}</p>
                      <p className={s.volDate}>{new Date(v.releaseAt).toLocaleDateString("ko-KR")}</p>
                    </div>
                    <span className={`${s.volState} ${e === "free" ? s.free : e ? s.owned : ""}`} data-testid="vol-state">
                      {e === "free" ? "무료" : e === "owned" ? "소장" : e === "rented" ? "대여중" : v.rentalInfo.price > 0 ? `대여 ${won(v.rentalInfo.price)}` : won(v.buyInfo.price)}
                    </span>
                  </button>
                </li>
              );
            })}
          </ul>
        </div>
      )}

      {tab === "R" && <Reviews pid={p.pid} info={detail.reviewInfo} />}

      <div className={s.bottom}>
        {main && mainVol && (
          <button type="button" className={s.primary} onClick={() => tapVol(mainVol)} data-testid={main.continues ? "continue" : "read-first"}>
            {main.label}
          </button>
        )}
        {selling && sales?.isBuy && (
          <button type="button" className={s.secondary} onClick={() => buyAll("B")}>
            전체 소장
          </button>
        )}
      </div>

      {sheet && (
        <UnlockSheet
          vol={sheet}
          title={p.title}
          options={selling ? optionsFor(sheet) : []}
          balance={user.isLogin ? { ...shownMoney(currentDevice().channel, user.side), mileage: user.side.blueMileage } : null}
          waitLeft={waitLeft}
          onChoose={(o) => choose(sheet, o)}
          onPreview={async () => {
            await closeSheet();
            // A preview in an app below 6.0.0 needs login (seed §5); login comes back to the preview.
            if (previewLoginFirst(currentDevice(), sheet) && !shell.requireMember(viewerHref(p.pid, sheet.no))) return;
            openViewer(sheet.no);
          }}
          onClose={() => void closeSheet()}
        />
      )}
      {pending && (
        <div className={s.undo} role="status" data-testid="undo-bar">
          <span>{pending.label}</span>
          <button type="button" className={s.undoBtn} onClick={pending.cancel}>
            되돌리기
          </button>
        </div>
      )}
    </article>
  );
}

/** The unlock sheet's id on the modal stack. */
const UNLOCK_SHEET = "unlock";

type SheetBalance = { label: string; amount: number; mileage: number };

function UnlockSheet({ vol, title, options, balance, waitLeft, onChoose, onPreview, onClose }: { vol: Vol; title: string; options: UnlockOption[]; balance: SheetBalance | null; waitLeft: number; onChoose: (o: UnlockOption) => void; onPreview: () => void; onClose: () => void }) {
  const ref = useRef<HTMLDivElement>(null);
  useEffect(() => {
    ref.current?.focus();
    const k = (e: KeyboardEvent) => e.key === "Escape" && onClose();
    window.addEventListener("keydown", k);
    return () => window.removeEventListener("keydown", k);
  }, [onClose]);
  return (
    <div className={s.sheetWrap} onClick={onClose}>
      <div className={s.sheet} role="dialog" aria-modal="true" aria-label={`${vol.title} 열기`} onClick={(e) => e.stopPropagation()} ref={ref} tabIndex={-1} data-testid="unlock-sheet">
        <p className={s.sheetTitle}>{vol.title}</p>
        <p className={s.sheetSub}>{title} · 이 회차를 여는 방법</p>
        {balance && (
          <p className={s.sheetSub} data-testid="sheet-balance">
            보유 {balance.label} {won(balance.amount)}
            {balance.mileage > 0 && ` · 마일리지 ${won(balance.mileage)}`}
          </p>
        )}
        {options.length === 0 && <p className={s.sheetSub}>지금은 이 회차를 열 수 없습니다.</p>}
        {options.map((o) => (
          <button key={o.kind} type="button" className={s.option} disabled={!o.available} onClick={() => onChoose(o)} data-kind={o.kind}>
            {o.label}
            {o.price !== undefined && <strong>{won(o.price)}</strong>}
            <span className={s.optionNote}>{o.kind === "wff" && waitLeft > 0 ? `${countdown(waitLeft)} 후 무료` : o.note}</span>
          </button>
        ))}
        {vol.isPreView && vol.previewPages > 0 && (
          <button type="button" className={s.option} onClick={onPreview} data-kind="preview">
            미리보기<span className={s.optionNote}>{vol.previewPages}쪽</span>
          </button>
        )}
        <button type="button" className={s.option} style={{ justifyContent: "center", fontWeight: 500 }} onClick={onClose}>
          닫기
        </button>
      </div>
    </div>
  );
}

function Bell({ on }: { on: boolean }) {
  return (
    <svg width="16" height="16" viewBox="0 0 24 24" aria-hidden="true">
      <path d="M6 17h12l-1.5-2V10a4.5 4.5 0 0 0-9 0v5L6 17zm4 2a2 2 0 0 0 4 0" fill={on ? "currentColor" : "none"} stroke="currentColor" strokeWidth="1.8" strokeLinejoin="round" />
    </svg>
  );
}
