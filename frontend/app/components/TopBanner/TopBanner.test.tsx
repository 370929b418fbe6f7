import { act, render, screen } from "@testing-library/react";
import { afterEach, describe, expect, it, vi } from "vitest";
import { TOP_BANNER_CHECK_MS } from "~/shell/timing";
import { TopBanner } from "./TopBanner";

const ANDROID_WEB = "Mozilla/5.0 (Linux; Android 14) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0 Mobile Safari/537.36";

afterEach(() => {
  vi.restoreAllMocks();
  vi.useRealTimers();
  document.cookie = "sf_topbanner_hide=; max-age=0; path=/";
});

describe("TopBanner: its place is kept from the first render (no layout shift)", () => {
  it("on Android web the 72 px place is there at once and the banner fills it after the check", () => {
    vi.useFakeTimers();
    vi.spyOn(navigator, "userAgent", "get").mockReturnValue(ANDROID_WEB);
    render(<TopBanner />);
    expect(screen.getByTestId("top-banner-place")).toBeTruthy();
    expect(screen.queryByTestId("top-banner")).toBeNull();
    act(() => vi.advanceTimersByTime(TOP_BANNER_CHECK_MS));
    expect(screen.getByTestId("top-banner")).toBeTruthy();
    expect(screen.queryByTestId("top-banner-place")).toBeNull();
  });

  it("elsewhere nothing is reserved", () => {
    vi.useFakeTimers();
    vi.spyOn(navigator, "userAgent", "get").mockReturnValue("Mozilla/5.0 (iPhone; CPU iPhone OS 17_4 like Mac OS X)");
    const { container } = render(<TopBanner />);
    expect(container.innerHTML).toBe("");
    act(() => vi.advanceTimersByTime(TOP_BANNER_CHECK_MS));
    expect(container.innerHTML).toBe("");
  });
});
