import { useEffect, useId, useRef } from "react";
import { Link, useLocation, useNavigate } from "react-router";
import { useShell } from "~/shell/ShellProvider";
import { useTheme } from "~/shell/theme";
import { bonusBanners, currentDevice, shownMoney } from "~/utils/device";
import { isHttpError } from "~/utils/http";
import type { ThemeSetting } from "~/utils/theme";
import { isAdultLevel } from "~/utils/user";
import { loadSideInfo, setToggle19, useUser } from "~/utils/userStore";
import * as s from "./Sidebar.css";

const THEMES: { value: ThemeSetting; label: string }[] = [
  { value: "light", label: "라이트" },
  { value: "dark", label: "다크" },
  { value: "auto", label: "시스템" },
];

/** The sidebar (web only): member summary, login/logout, theme, 19 toggle, menu. */
export function Sidebar({ onClose }: { onClose: () => void }) {
  const user = useUser();
  const shell = useShell();
  const { setting, setSetting } = useTheme();
  const navigate = useNavigate();
  const location = useLocation();
  const titleId = useId();
  const closeRef = useRef<HTMLButtonElement>(null);
  const device = currentDevice();

  useEffect(() => {
    closeRef.current?.focus();
    shell.showDim(onClose);
    const onKey = (e: KeyboardEvent) => e.key === "Escape" && onClose();
    window.addEventListener("keydown", onKey);
    return () => {
      window.removeEventListener("keydown", onKey);
      shell.hideDim();
    };
  }, [shell, onClose]);

  useEffect(() => {
    if (user.isLogin) void loadSideInfo();
  }, [user.isLogin]);

  const money = shownMoney(device.channel, user.side);
  const side = user.side;
  // The writer hides the bonuses where the channel may not show them; the
  // page asks the same rule too, so a stale answer cannot show them there.
  const banners = bonusBanners(device.channel);
  const here = location.pathname + location.search;

  const toggle19 = async () => {
    try {
      await setToggle19(user.adultLevel !== 2);
    } catch (e) {
      shell.toast(isHttpError(e) ? e.message : "잠시 후 다시 시도해 주세요.");
    }
  };

  return (
    <aside className={s.panel} role="dialog" aria-modal="true" aria-labelledby={titleId} data-testid="sidebar">
      <div className={s.top}>
        <h2 id={titleId} className={s.title}>
          전체 메뉴
        </h2>
        <button ref={closeRef} type="button" className={s.close} aria-label="메뉴 닫기" onClick={onClose}>
          ×
        </button>
      </div>
      <section className={s.user} aria-label="내 정보">
        {user.isLogin && user.authInfo ? (
          <>
            <p className={s.name} data-testid="user-name">
              {breakable(user.authInfo.displayName || user.authInfo.email || user.authInfo.uid)}
            </p>
            <p className={s.money}>
              <span>{money.label}</span>
              <span className={s.moneyAmount} data-testid="money">
                {money.amount.toLocaleString("ko-KR")}원
              </span>
            </p>
            <p className={s.money}>
              <span>마일리지</span>
              <span className={s.moneyAmount} data-testid="mileage">
                {side.blueMileage.toLocaleString("ko-KR")}원
              </span>
            </p>
            <ul className={s.facts} aria-label="알림과 보유 혜택" data-testid="side-facts">
              {side.newAlarm && (
                <li className={s.badge}>
                  <Link to="/mypages/inbox" onClick={onClose} className={s.badgeLink} data-testid="new-alarm">
                    새 알림
                  </Link>
                </li>
              )}
              {side.newGift && (
                <li className={s.badge}>
                  <Link to="/mypages/gifts" onClick={onClose} className={s.badgeLink} data-testid="new-gift">
                    새 선물
                  </Link>
                </li>
              )}
              {side.flagComicTicket && <li className={s.fact}>만화 이용권 보유</li>}
              {side.flagNovelTicket && <li className={s.fact}>소설 이용권 보유</li>}
              {side.autoPayment.isUse && (
                <li className={s.fact} data-testid="auto-payment">
                  {side.autoPayment.type === "bluemoney-scheduled-payment"
                    ? `정기 충전 매월 ${side.autoPayment.triggerValue}일 ${side.autoPayment.money.toLocaleString("ko-KR")}원`
                    : `자동 충전 ${side.autoPayment.money.toLocaleString("ko-KR")}원`}
                </li>
              )}
            </ul>
            <button type="button" className={s.primary} onClick={() => { onClose(); navigate("/payment/recharge.asp"); }}>
              충전하기
            </button>
            {banners && side.joinBonus.valid && (
              <Link className={s.bonus} to="/join/event.asp" onClick={onClose} data-testid="join-bonus-banner">
                신규 가입 보너스 받기
              </Link>
            )}
            {banners && side.firstBill.valid && side.eventBannerInfo.isEvent && (
              <Link className={s.bonus} to={side.eventBannerInfo.retUrl || "/payment/recharge.asp"} onClick={onClose} data-testid="first-charge-banner">
                첫 충전 보너스 {side.firstChargeBonusPct > 0 ? `${side.firstChargeBonusPct}% ` : ""}받기
              </Link>
            )}
          </>
        ) : (
          <button type="button" className={s.primary} onClick={() => { onClose(); shell.goLogin(here); }}>
            로그인 / 회원가입
          </button>
        )}
      </section>
      <section className={s.group} aria-labelledby={`${titleId}-theme`}>
        <h3 id={`${titleId}-theme`} className={s.groupTitle}>
          화면 테마
        </h3>
        <div className={s.segmented} role="radiogroup" aria-labelledby={`${titleId}-theme`}>
          {THEMES.map((t) => (
            <button key={t.value} type="button" role="radio" aria-checked={setting === t.value} className={s.segment} onClick={() => setSetting(t.value)}>
              {t.label}
            </button>
          ))}
        </div>
      </section>
      {user.isLogin && isAdultLevel(user.adultLevel) && (
        <section className={s.group}>
          <div className={s.row}>
            <span id={`${titleId}-19`}>성인 작품 보기 (19)</span>
            <button type="button" role="switch" aria-checked={user.adultLevel === 2} aria-labelledby={`${titleId}-19`} className={s.switchBtn} onClick={toggle19} />
          </div>
        </section>
      )}
      {user.isLogin && !isAdultLevel(user.adultLevel) && (
        <section className={s.group}>
          <Link to={`/adultverification?url=${encodeURIComponent(here)}`} onClick={onClose}>
            성인 인증하기
          </Link>
        </section>
      )}
      <nav className={s.group} aria-label="바로가기">
        <ul className={s.links}>
          <li><Link to="/webtoon" onClick={onClose}>웹툰</Link></li>
          <li><Link to="/comic" onClick={onClose}>만화</Link></li>
          <li><Link to="/novel" onClick={onClose}>소설</Link></li>
          <li><Link to="/ranking" onClick={onClose}>랭킹</Link></li>
          <li><Link to="/mypages/recent" onClick={onClose}>최근 본 작품</Link></li>
          <li><Link to="/mypages/library" onClick={onClose}>내 서재</Link></li>
          <li><Link to="/mypages/inbox" onClick={onClose}>알림함</Link></li>
          <li><Link to="/jumpingpass" onClick={onClose}>점핑패스</Link></li>
          <li><Link to="/awards" onClick={onClose}>어워즈</Link></li>
          <li><Link to="/cs" onClick={onClose}>고객센터</Link></li>
        </ul>
      </nav>
      {user.isLogin && (
        <button type="button" className={s.textButton} onClick={() => { onClose(); navigate("/logout/"); }}>
          로그아웃
        </button>
      )}
    </aside>
  );
}

/** breakable lets a long e-mail address wrap before its "@" rather than mid-word. */
function breakable(name: string): React.ReactNode {
  const at = name.indexOf("@");
  if (at <= 0) return name;
  return (
    <>
      {name.slice(0, at)}
      <wbr />
      {name.slice(at)}
    </>
  );
}
