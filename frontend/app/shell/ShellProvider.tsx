// One file on purpose (issue 20): it is on the home page's first load, and splitting its state into hooks grew the shell chunk by 0.7 kB (0.16 kB gzip), so it stays whole.
// The shell's global UI (seed §2, §4): dim, floating message, login-required
// modal, pulse loader, top loading bar, confirm popup, snack bar and cashback
// toast, the modal stack and the page scroll lock.
import { createContext, useCallback, useContext, useEffect, useMemo, useRef, useState } from "react";
import { useLocation, useNavigate } from "react-router";
import { ConfirmPopup, type ConfirmOptions } from "~/components/ui/ConfirmPopup";
import * as s from "~/components/ui/ui.css";
import { app } from "~/utils/bridge";
import { currentDevice } from "~/utils/device";
import { loginUrl, memberCheck } from "~/utils/user";
import { getUserState, viewOf } from "~/utils/userStore";
import { LoadingBar, type BarState } from "./loadingBar";
import { ModalStack, modalReporter, scrollLocker } from "./modalStack";
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
  /**
   * openModal stacks a modal with its own history entry (same address), so Back
   * closes it (onBack) and nothing else; false when it is already open.
   */
  openModal(id: string, onBack: () => void): boolean;
  /** closeModal: the modal closed itself (its own button); its history entry goes too. Resolves once it has. */
  closeModal(id: string): Promise<void>;
  /** what a route change does: clear the modal stack and scroll lock, close the dim and popups */
  resetForRoute(): void;
};

const Ctx = createContext<Shell | null>(null);

export function useShell(): Shell {
  const v = useContext(Ctx);
  if (!v) throw new Error("useShell outside ShellProvider");
  return v;
}

type PopupEntry = { id: string; opts: ConfirmOptions };

/** The mark on a modal's history entry. */
const MODAL_STATE = "sfModal";
// Chromium runs a window's popstate listeners in the order they were added,
// capture or not, so the shell's must be added before the router's: here,
// when this module loads (the route modules load before the router is made).
// It hands the event to the mounted provider.
let popGate: ((e: PopStateEvent) => void) | null = null;
if (typeof window !== "undefined") window.addEventListener("popstate", (e) => popGate?.(e), true);

const idxOfState = (st: unknown) => (st && typeof st === "object" ? (st as { idx?: unknown }).idx : undefined);
const modalOfState = (st: unknown) => (st && typeof st === "object" ? (st as Record<string, unknown>)[MODAL_STATE] : undefined);

export function ShellProvider({ children }: { children: React.ReactNode }) {
  const navigate = useNavigate();
  // The router's history index of the page on screen (a modal's entry carries its page's).
  const location = useLocation();
  const pageIdx = useRef<unknown>(undefined);
  useEffect(() => {
    pageIdx.current = idxOfState(window.history.state);
  }, [location.key]);
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
  const resolvers = useRef(new Map<string, (ok: boolean) => void>());
  // Modals with a history entry, what Back does to each, and the Back moves the shell made itself.
  const withEntry = useRef(new Set<string>());
  const closers = useRef(new Map<string, () => void>());
  const ownBacks = useRef<(() => void)[]>([]);

  const barCtl = useMemo(() => new LoadingBar(setBar), []);
  const snackCtl = useMemo(() => new SnackQueue(setSnack), []);
  const modals = useMemo(() => new ModalStack(setStack), []);
  const lock = useMemo(() => {
    const d = currentDevice();
    return typeof document === "undefined" ? () => {} : scrollLocker(d.isIOSApp, app.scrollEnable);
  }, []);

  const reportModal = useMemo(() => modalReporter(app.showModal), []);

  useEffect(() => () => barCtl.dispose(), [barCtl]);

  // The page scroll is locked, and the app told a modal is up, while a modal
  // is stacked or the dim is up.
  const locked = stack.length > 0 || dim !== null;
  useEffect(() => {
    lock(locked);
    reportModal(locked);
  }, [locked, lock, reportModal]);

  const goLogin = useCallback(
    (returnUrl?: string, fromAdult?: boolean) => {
      const ret = returnUrl ?? window.location.pathname + window.location.search;
      if (currentDevice().isApp && app.login(ret, LOGIN_REQUIRED_MESSAGE)) return;
      navigate(loginUrl(ret, fromAdult));
    },
    [navigate],
  );

  // Back closes the top modal only (seed §4: going back pops the last entry).
  // Opening a modal pushes an entry of the same address, marked; Back to the
  // page under it is taken before the router sees it (a capturing listener
  // runs first), so the page stays and only the top modal closes.
  const openModal = useCallback(
    (id: string, onBack: () => void) => {
      if (!modals.push(id)) return false;
      closers.current.set(id, onBack);
      withEntry.current.add(id);
      window.history.pushState({ ...(window.history.state ?? {}), [MODAL_STATE]: id }, "");
      return true;
    },
    [modals],
  );

  const closeModal = useCallback(
    (id: string) => {
      closers.current.delete(id);
      modals.remove(id);
      // Take the entry back off only while it is the current one (not after the page moved on).
      if (!withEntry.current.delete(id) || modalOfState(window.history.state) !== id) return Promise.resolve();
      return new Promise<void>((resolve) => {
        ownBacks.current.push(resolve);
        window.history.back();
      });
    },
    [modals],
  );

  useEffect(() => {
    const onPop = (e: PopStateEvent) => {
      const own = ownBacks.current.shift();
      if (own) {
        e.stopImmediatePropagation();
        own();
        return;
      }
      // Forward onto the entry of a modal that Back closed, on this same page:
      // the modal stays closed and the router must not take it for a new visit
      // (it would load the page again). Step back off that entry unseen.
      const onto = modalOfState(e.state);
      if (typeof onto === "string" && !withEntry.current.has(onto) && idxOfState(e.state) === pageIdx.current) {
        e.stopImmediatePropagation();
        ownBacks.current.push(() => {});
        window.history.back();
        return;
      }
      const top = modals.list[modals.list.length - 1];
      if (top === undefined || !withEntry.current.has(top)) return;
      e.stopImmediatePropagation();
      withEntry.current.delete(top);
      modals.pop();
      const close = closers.current.get(top);
      closers.current.delete(top);
      close?.();
    };
    popGate = onPop;
    return () => {
      if (popGate === onPop) popGate = null;
    };
  }, [modals]);

  const settle = useCallback((id: string, ok: boolean) => {
    const r = resolvers.current.get(id);
    resolvers.current.delete(id);
    r?.(ok);
  }, []);

  const confirm = useCallback(
    (opts: ConfirmOptions) =>
      new Promise<boolean>((resolve) => {
        const id = `popup-${++popupSeq.current}`;
        resolvers.current.set(id, resolve);
        setPopups((p) => [...p, { id, opts }]);
        openModal(id, () => {
          setPopups((p) => p.filter((x) => x.id !== id));
          settle(id, false);
        });
      }),
    [openModal, settle],
  );

  // A popup's own buttons: it closes at once; the answer comes once its history entry is gone
  // (so what the answer does, e.g. going to login, starts from the page's own entry).
  const closePopup = useCallback(
    (id: string, ok: boolean) => {
      setPopups((p) => p.filter((x) => x.id !== id));
      void closeModal(id).then(() => settle(id, ok));
    },
    [closeModal, settle],
  );

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
      openModal,
      closeModal,
      resetForRoute: () => {
        setPopups([]);
        [...resolvers.current.keys()].forEach((id) => settle(id, false));
        modals.clear();
        withEntry.current.clear();
        closers.current.clear();
        ownBacks.current.splice(0).forEach((done) => done());
        setDim(null);
      },
    }),
    [barCtl, snackCtl, modals, confirm, goLogin, loginRequired, requireMember, openModal, closeModal, settle],
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
