// The shell's global UI (seed §2, §4): dim, floating message, login-required
// modal, pulse loader, top loading bar, confirm popup, snack bar and cashback
// toast, the modal stack and the page scroll lock.
import { createContext, useCallback, useContext, useEffect, useMemo, useRef, useState } from "react";
import { useNavigate } from "react-router";
import { ConfirmPopup, type ConfirmOptions } from "~/components/ui/ConfirmPopup";
import * as s from "~/components/ui/ui.css";
import { app } from "~/utils/bridge";
import { currentDevice } from "~/utils/device";
import { loginUrl, memberCheck } from "~/utils/user";
import { getUserState, viewOf } from "~/utils/userStore";
import { LoadingBar, type BarState } from "./loadingBar";
import { ModalStack, scrollLocker } from "./modalStack";
import { SnackQueue, type Snack } from "./snack";
import { FLOATING_MESSAGE_MS } from "./timing";

export const LOGIN_REQUIRED_MESSAGE = "로그인이 필요한 서비스입니다.";
export const LOGIN_REQUIRED_QUESTION = "로그인 하시겠습니까?";

export type Shell = {
  showDim(onClick?: () => void): void;
  hideDim(): void;
  /** bottom floating message; hides after 3000 ms unless another time is given */
  toast(message: string, ms?: number): void;
  /** the login-required confirm modal; login goes to the app's login or /nuxgin with the return url */
  loginRequired(returnUrl?: string): void;
  /** go to login directly (app: native login; web: /nuxgin?url=) */
  goLogin(returnUrl?: string, fromAdult?: boolean): void;
  /**
   * The one check before a member-only action: true for a member; a guest goes
   * to login at once (app: native login), a visitor gets the login-required modal.
   */
  requireMember(returnUrl?: string): boolean;
  showLoader(): void;
  hideLoader(): void;
  startBar(): void;
  finishBar(): void;
  confirm(opts: ConfirmOptions): Promise<boolean>;
  snack(message: string, ms?: number): void;
  cashback(message: string, ms?: number): void;
  modals: ModalStack;
  /** what a route change does: clear the modal stack and scroll lock, close the dim and popups */
  resetForRoute(): void;
};

const Ctx = createContext<Shell | null>(null);

export function useShell(): Shell {
  const v = useContext(Ctx);
  if (!v) throw new Error("useShell outside ShellProvider");
  return v;
}

type PopupEntry = { id: string; opts: ConfirmOptions; resolve: (ok: boolean) => void };

export function ShellProvider({ children }: { children: React.ReactNode }) {
  const navigate = useNavigate();
  const [dim, setDim] = useState<{ onClick?: () => void } | null>(null);
  const [message, setMessage] = useState<{ id: number; text: string } | null>(null);
  const [loader, setLoader] = useState(0);
  const [bar, setBar] = useState<BarState>({ visible: false, percent: 0 });
  const [popups, setPopups] = useState<PopupEntry[]>([]);
  const [snack, setSnack] = useState<Snack>(null);
  const [stack, setStack] = useState<readonly string[]>([]);

  const msgTimer = useRef<ReturnType<typeof setTimeout>>(undefined);
  const msgSeq = useRef(0);
  const popupSeq = useRef(0);

  const barCtl = useMemo(() => new LoadingBar(setBar), []);
  const snackCtl = useMemo(() => new SnackQueue(setSnack), []);
  const modals = useMemo(() => new ModalStack(setStack), []);
  const lock = useMemo(() => {
    const d = currentDevice();
    return typeof document === "undefined" ? () => {} : scrollLocker(d.isIOSApp, app.scrollEnable);
  }, []);

  useEffect(() => () => barCtl.dispose(), [barCtl]);

  // The page scroll is locked while a modal is stacked or the dim is up.
  const locked = stack.length > 0 || dim !== null;
  useEffect(() => lock(locked), [locked, lock]);

  const goLogin = useCallback(
    (returnUrl?: string, fromAdult?: boolean) => {
      const ret = returnUrl ?? window.location.pathname + window.location.search;
      if (currentDevice().isApp && app.login(ret, LOGIN_REQUIRED_MESSAGE)) return;
      navigate(loginUrl(ret, fromAdult));
    },
    [navigate],
  );

  const confirm = useCallback(
    (opts: ConfirmOptions) =>
      new Promise<boolean>((resolve) => {
        const id = `popup-${++popupSeq.current}`;
        modals.push(id);
        setPopups((p) => [...p, { id, opts, resolve }]);
      }),
    [modals],
  );

  const closePopup = useCallback(
    (id: string, ok: boolean) => {
      setPopups((p) => {
        p.find((x) => x.id === id)?.resolve(ok);
        return p.filter((x) => x.id !== id);
      });
      modals.remove(id);
    },
    [modals],
  );

  // Back closes the top popup (the modal stack pops its last entry).
  useEffect(() => {
    const onPop = () => {
      const id = modals.pop();
      if (id) setPopups((p) => {
        p.find((x) => x.id === id)?.resolve(false);
        return p.filter((x) => x.id !== id);
      });
    };
    window.addEventListener("popstate", onPop);
    return () => window.removeEventListener("popstate", onPop);
  }, [modals]);

  const loginRequired = useCallback(
    (returnUrl?: string) => {
      void confirm({
        content: `${LOGIN_REQUIRED_MESSAGE}\n${LOGIN_REQUIRED_QUESTION}`,
        leftLabel: "닫기",
        rightLabel: "로그인",
      }).then((ok) => ok && goLogin(returnUrl));
    },
    [confirm, goLogin],
  );

  const requireMember = useCallback(
    (returnUrl?: string) => {
      const d = currentDevice();
      switch (memberCheck(viewOf(getUserState(), d), d.isApp)) {
        case "member":
          return true;
        case "nativeLogin":
        case "webLogin":
          goLogin(returnUrl);
          return false;
        case "askLogin":
          loginRequired(returnUrl);
          return false;
      }
    },
    [goLogin, loginRequired],
  );

  const shell = useMemo<Shell>(
    () => ({
      showDim: (onClick) => setDim({ onClick }),
      hideDim: () => setDim(null),
      toast: (text, ms = FLOATING_MESSAGE_MS) => {
        clearTimeout(msgTimer.current);
        setMessage({ id: ++msgSeq.current, text });
        msgTimer.current = setTimeout(() => setMessage(null), ms);
      },
      loginRequired,
      goLogin,
      requireMember,
      showLoader: () => setLoader((n) => n + 1),
      hideLoader: () => setLoader((n) => Math.max(0, n - 1)),
      startBar: () => barCtl.start(),
      finishBar: () => barCtl.finish(),
      confirm,
      snack: (m, ms) => snackCtl.show("snack", m, ms),
      cashback: (m, ms) => snackCtl.show("cashback", m, ms),
      modals,
      resetForRoute: () => {
        setPopups((p) => {
          p.forEach((x) => x.resolve(false));
          return [];
        });
        modals.clear();
        setDim(null);
      },
    }),
    [barCtl, snackCtl, modals, confirm, goLogin, loginRequired, requireMember],
  );

  return (
    <Ctx.Provider value={shell}>
      {children}
      {bar.visible && (
        <div
          className={s.bar}
          style={{ width: `${bar.percent}%` }}
          role="progressbar"
          aria-label="페이지 로딩"
          aria-valuenow={bar.percent}
          aria-valuemin={0}
          aria-valuemax={100}
          data-testid="loading-bar"
        />
      )}
      {(dim || popups.length > 0) && <div className={s.dim} data-testid="dim" onClick={() => dim?.onClick?.()} />}
      {popups.map((p) => (
        <ConfirmPopup key={p.id} opts={p.opts} onResult={(ok) => closePopup(p.id, ok)} />
      ))}
      {loader > 0 && (
        <div className={s.loaderWrap} role="status" aria-label="로딩 중" data-testid="pulse-loader">
          <div className={s.loader} />
        </div>
      )}
      <div aria-live="polite" aria-atomic="true">
        {message && (
          <p key={message.id} className={s.floating} role="status" data-testid="floating-message">
            {message.text}
          </p>
        )}
        {snack && (
          <p
            key={snack.id}
            className={snack.kind === "cashback" ? `${s.snack} ${s.cashback}` : s.snack}
            role="status"
            data-testid={snack.kind === "cashback" ? "cashback-toast" : "snack-bar"}
          >
            {snack.message}
          </p>
        )}
      </div>
    </Ctx.Provider>
  );
}
