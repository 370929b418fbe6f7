import { act, fireEvent, render, screen } from "@testing-library/react";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { createMemoryRouter, RouterProvider, useLocation } from "react-router";
import { ErrorPage } from "~/components/ErrorPage/ErrorPage";
import { applyMe, resetUserStore } from "~/utils/userStore";
import { Skeleton } from "~/components/ui/Skeleton";
import { setSafeArea } from "./safeArea";
import { LOGIN_REQUIRED_MESSAGE, ShellProvider, useShell, type Shell } from "./ShellProvider";

let shell: Shell;
function Grab() {
  shell = useShell();
  const loc = useLocation();
  return <p data-testid="where">{loc.pathname + loc.search}</p>;
}
function mount(path = "/comic?x=1") {
  const router = createMemoryRouter(
    [{ path: "*", element: (<ShellProvider><Grab /></ShellProvider>) }],
    { initialEntries: [path] },
  );
  render(<RouterProvider router={router} />);
}

beforeEach(() => vi.useFakeTimers());
afterEach(() => vi.useRealTimers());

describe("global UI", () => {
  it("floating message hides after 3000 ms by default, or the given time", () => {
    mount();
    act(() => shell.toast("안녕하세요"));
    expect(screen.getByTestId("floating-message").textContent).toBe("안녕하세요");
    act(() => vi.advanceTimersByTime(2999));
    expect(screen.queryByTestId("floating-message")).not.toBeNull();
    act(() => vi.advanceTimersByTime(1));
    expect(screen.queryByTestId("floating-message")).toBeNull();
    act(() => shell.toast("짧게", 1500));
    act(() => vi.advanceTimersByTime(1500));
    expect(screen.queryByTestId("floating-message")).toBeNull();
  });

  it("login-required modal: the seed's message, close and login; login goes to /nuxgin with the return url", async () => {
    mount("/comic?x=1");
    act(() => shell.loginRequired());
    const dialog = screen.getByRole("alertdialog");
    expect(dialog.textContent).toContain(LOGIN_REQUIRED_MESSAGE);
    expect(dialog.textContent).toContain("로그인 하시겠습니까?");
    expect(screen.getByRole("button", { name: "닫기" })).toBeTruthy();
    expect(shell.modals.list).toHaveLength(1);
    expect(document.body.getAttribute("data-scroll-lock")).toBe("true");
    window.history.replaceState(null, "", "/comic?x=1");
    await act(async () => fireEvent.click(screen.getByRole("button", { name: "로그인" })));
    expect(screen.getByTestId("where").textContent).toBe("/nuxgin?url=%2Fcomic%3Fx%3D1");
    expect(screen.queryByRole("alertdialog")).toBeNull();
    expect(document.body.hasAttribute("data-scroll-lock")).toBe(false);
  });

  it("confirm popup: one-button variant, dim click answers false, title sets the height limit", async () => {
    mount();
    let answer: boolean | undefined;
    act(() => void shell.confirm({ title: "알림", content: "내용", rightLabel: "확인" }).then((a) => (answer = a)));
    expect(screen.getAllByRole("button")).toHaveLength(1);
    const content = screen.getByTestId("confirm-content");
    expect(content.style.maxHeight).toBe(`${window.innerHeight * 0.7 - 70 - 55.5}px`);
    // The answer comes once the popup's history entry is gone.
    await act(async () => fireEvent.click(screen.getByTestId("confirm-popup")));
    await act(() => vi.waitFor(() => expect(answer).toBe(false)));
    act(() => void shell.confirm({ content: "둘", leftLabel: "취소", rightLabel: "확인" }).then((a) => (answer = a)));
    expect(screen.getByTestId("confirm-content").style.maxHeight).toBe(`${window.innerHeight * 0.7 - 70}px`);
    await act(async () => fireEvent.click(screen.getByRole("button", { name: "확인" })));
    await act(() => vi.waitFor(() => expect(answer).toBe(true)));
  });

  it("confirm popup: the safe area's insets come off the window before the height limit", () => {
    mount();
    act(() => setSafeArea({ top: 44, right: 0, bottom: 34, left: 0 }));
    act(() => void shell.confirm({ content: "내용", rightLabel: "확인" }));
    expect(screen.getByTestId("confirm-content").style.maxHeight).toBe(`${(window.innerHeight - 78) * 0.7 - 70}px`);
    act(() => setSafeArea({ top: 0, right: 0, bottom: 0, left: 0 }));
    expect(screen.getByTestId("confirm-content").style.maxHeight).toBe(`${window.innerHeight * 0.7 - 70}px`);
  });

  it("confirm popup: its content's scrollbar shows while it scrolls and hides 1 s after", () => {
    mount();
    act(() => void shell.confirm({ content: "긴 내용", rightLabel: "확인" }));
    const content = screen.getByTestId("confirm-content");
    expect(content.hasAttribute("data-scrolling")).toBe(false);
    fireEvent.scroll(content);
    expect(content.getAttribute("data-scrolling")).toBe("true");
    act(() => vi.advanceTimersByTime(600));
    // Still scrolling: the second scroll starts the second over.
    fireEvent.scroll(content);
    act(() => vi.advanceTimersByTime(999));
    expect(content.getAttribute("data-scrolling")).toBe("true");
    act(() => vi.advanceTimersByTime(1));
    expect(content.hasAttribute("data-scrolling")).toBe(false);
  });

  it("skeleton: nothing for the first 100 ms of loading, then the placeholder", () => {
    render(<Skeleton label="리뷰를 불러오는 중" />);
    act(() => vi.advanceTimersByTime(99));
    expect(screen.queryByTestId("skeleton")).toBeNull();
    act(() => vi.advanceTimersByTime(1));
    expect(screen.getByRole("status", { name: "리뷰를 불러오는 중" }).getAttribute("aria-busy")).toBe("true");
  });

  it("a modal has its own history entry: Back closes the top one only, its own button takes the entry off", async () => {
    mount("/comic");
    const page = window.history.state;
    let a: boolean | undefined;
    let b: boolean | undefined;
    act(() => void shell.confirm({ content: "첫째", rightLabel: "확인" }).then((x) => (a = x)));
    act(() => void shell.confirm({ content: "둘째", rightLabel: "확인" }).then((x) => (b = x)));
    expect(window.history.state).toMatchObject({ sfModal: expect.stringMatching(/^popup-/) });
    expect(screen.getAllByRole("alertdialog")).toHaveLength(2);

    // Back: the top popup closes (answering false), the one under it stays, the page stays.
    await act(async () => window.history.back());
    await act(() => vi.waitFor(() => expect(b).toBe(false)));
    expect(a).toBeUndefined();
    expect(screen.getAllByRole("alertdialog")).toHaveLength(1);
    expect(screen.getByRole("alertdialog").textContent).toContain("첫째");
    expect(shell.modals.list).toHaveLength(1);
    expect(screen.getByTestId("where").textContent).toBe("/comic");

    // Its own button: closed, and the history is back on the page's own entry.
    await act(async () => fireEvent.click(screen.getByRole("button", { name: "확인" })));
    await act(() => vi.waitFor(() => expect(a).toBe(true)));
    expect(screen.queryByRole("alertdialog")).toBeNull();
    expect(shell.modals.list).toHaveLength(0);
    expect(window.history.state).toEqual(page);
  });

  it("in the app, the bridge's show modal follows the popups and the dim", async () => {
    const ua = vi.spyOn(navigator, "userAgent", "get").mockReturnValue("Mozilla/5.0 (Linux; Android 14) SFApp/AA/6.1.0");
    const got: string[] = [];
    window.SFAndroid = { showModal: (j) => got.push(j) };
    try {
      mount();
      expect(got).toEqual([]);
      let a: boolean | undefined;
      act(() => void shell.confirm({ content: "하나", rightLabel: "확인" }).then((x) => (a = x)));
      act(() => shell.showDim());
      expect(got).toEqual(['{"show":true}']);
      await act(async () => fireEvent.click(screen.getByRole("button", { name: "확인" })));
      await act(() => vi.waitFor(() => expect(a).toBe(true)));
      expect(got).toEqual(['{"show":true}']); // the dim is still up
      act(() => shell.hideDim());
      expect(got).toEqual(['{"show":true}', '{"show":false}']);
    } finally {
      delete window.SFAndroid;
      ua.mockRestore();
    }
  });

  it("a route change clears the modal stack, the popups and the dim", () => {
    mount();
    act(() => {
      shell.showDim();
      shell.modals.push("sheet");
      void shell.confirm({ content: "x" });
    });
    expect(screen.queryByTestId("dim")).not.toBeNull();
    act(() => shell.resetForRoute());
    expect(screen.queryByTestId("dim")).toBeNull();
    expect(screen.queryByRole("alertdialog")).toBeNull();
    expect(shell.modals.list).toEqual([]);
  });

  it("pulse loader shows while any caller holds it", () => {
    mount();
    act(() => {
      shell.showLoader();
      shell.showLoader();
    });
    act(() => shell.hideLoader());
    expect(screen.queryByTestId("pulse-loader")).not.toBeNull();
    act(() => shell.hideLoader());
    expect(screen.queryByTestId("pulse-loader")).toBeNull();
  });

  it("snack bar then cashback toast: the second waits 350 ms", () => {
    mount();
    act(() => shell.snack("찜 한 작품에 추가 되었습니다.", 1500));
    expect(screen.getByTestId("snack-bar").textContent).toBe("찜 한 작품에 추가 되었습니다.");
    act(() => shell.cashback("캐시백 적립"));
    expect(screen.queryByTestId("snack-bar")).toBeNull();
    act(() => vi.advanceTimersByTime(350));
    expect(screen.getByTestId("cashback-toast").textContent).toBe("캐시백 적립");
  });
});

describe("error page", () => {
  it("404: no CS link, a home button", () => {
    render(<ErrorPage status={404} message="This page could not be found" />);
    expect(screen.getByRole("heading").textContent).toBe("페이지를 찾을 수 없습니다");
    expect(screen.getByText("This page could not be found")).toBeTruthy();
    expect(screen.queryByRole("link", { name: /고객센터/ })).toBeNull();
    expect(screen.getByRole("button", { name: "홈으로" })).toBeTruthy();
  });
  it("500: CS link to /cs/ and refresh", () => {
    render(<ErrorPage status={500} />);
    expect(screen.getByRole("link", { name: /고객센터/ }).getAttribute("href")).toBe("/cs/");
    expect(screen.getByRole("button", { name: "새로고침" })).toBeTruthy();
  });
  it("40: wifi-off graphic and retry", () => {
    render(<ErrorPage status={40} />);
    expect(screen.getByTestId("wifi-off")).toBeTruthy();
    expect(screen.getByRole("button", { name: "다시 시도" })).toBeTruthy();
  });
  it("in the app the home button goes to the sub-main home through the bridge", () => {
    const ua = vi.spyOn(navigator, "userAgent", "get").mockReturnValue("Mozilla/5.0 (Linux; Android 14) SFApp/AA/6.1.0");
    const got: string[] = [];
    window.SFAndroid = { goSubMainHome: (j) => got.push(j), goPage: (j) => got.push(j) };
    render(<ErrorPage status={403} />);
    fireEvent.click(screen.getByRole("button", { name: "홈으로" }));
    fireEvent.click(screen.getByRole("link", { name: /고객센터/ }));
    expect(got).toEqual(["{}", '{"url":"/cs/"}']);
    delete window.SFAndroid;
    ua.mockRestore();
  });
});

describe("requireMember: the one check before a member-only action", () => {
  const ANDROID_APP = "Mozilla/5.0 (Linux; Android 14) SFApp/AA/6.1.0";
  const signIn = (loginType: string) => {
    applyMe({
      header: { code: 200, message: "" },
      authInfo: { uid: "g1", bid: "b-guest", email: "", loginType, authType: "" },
      adultInfo: { age: 0, authAdult: false, authReal: false, is19Toggle: true, isKorea: false, outLink: false },
      encId: "enc",
    });
    document.cookie = "sf_bid=b-guest; path=/";
  };
  afterEach(() => {
    document.cookie = "sf_bid=; path=/; max-age=0";
    resetUserStore();
    delete window.SFAndroid;
  });

  it("a member goes ahead, nothing opens", () => {
    signIn("N");
    mount("/webtoon/detail/w1");
    let ok = false;
    act(() => void (ok = shell.requireMember()));
    expect(ok).toBe(true);
    expect(screen.queryByRole("alertdialog")).toBeNull();
    expect(screen.getByTestId("where").textContent).toBe("/webtoon/detail/w1");
  });

  it("a guest in the app goes to the app's native login with the seed's message, no modal", () => {
    const ua = vi.spyOn(navigator, "userAgent", "get").mockReturnValue(ANDROID_APP);
    const got: string[] = [];
    window.SFAndroid = { login: (j) => got.push(j) };
    signIn("D");
    mount("/webtoon/detail/w1");
    window.history.replaceState(null, "", "/webtoon/detail/w1");
    let ok = true;
    act(() => void (ok = shell.requireMember()));
    expect(ok).toBe(false);
    expect(got).toEqual([JSON.stringify({ returnUrl: "/webtoon/detail/w1", message: LOGIN_REQUIRED_MESSAGE })]);
    expect(screen.queryByRole("alertdialog")).toBeNull();
    expect(screen.getByTestId("where").textContent).toBe("/webtoon/detail/w1");
    ua.mockRestore();
  });

  it("a guest on the web goes to /nuxgin with the return url", () => {
    signIn("D");
    mount("/webtoon/detail/w1");
    window.history.replaceState(null, "", "/webtoon/detail/w1");
    act(() => void shell.requireMember());
    expect(screen.getByTestId("where").textContent).toBe("/nuxgin?url=%2Fwebtoon%2Fdetail%2Fw1");
  });

  it("a visitor gets the login-required modal", () => {
    mount("/webtoon/detail/w1");
    let ok = true;
    act(() => void (ok = shell.requireMember()));
    expect(ok).toBe(false);
    expect(screen.getByRole("alertdialog").textContent).toContain(LOGIN_REQUIRED_MESSAGE);
  });
});
