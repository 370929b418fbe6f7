import { render, screen } from "@testing-library/react";
import { describe, expect, it } from "vitest";
import { APP_STORE_URL, ONE_STORE_URL, PLAY_STORE_URL, storeUrlFor } from "~/shell/appOpen";
import { deviceInfo } from "~/utils/device";
import { APP_UPDATE_BUTTON, APP_UPDATE_TITLE, AppUpdateGate } from "./AppUpdate";

const ua = (token: string) => `Mozilla/5.0 (Linux; Android 14) Chrome/131.0 Mobile Safari/537.36 ${token}`;
const gate = (token: string, feature: "productHome" | "conversation") =>
  render(
    <AppUpdateGate feature={feature} device={deviceInfo(token ? ua(token) : "Mozilla/5.0 (iPhone; CPU iPhone OS 17_4 like Mac OS X)")}>
      <p>화면 내용</p>
    </AppUpdateGate>,
  );

describe("AppUpdateGate: minimum app versions per screen (seed §5)", () => {
  it.each([
    ["SFApp/AA/1.2.9", "productHome", PLAY_STORE_URL],
    ["SFApp/AC/1.3.9", "productHome", PLAY_STORE_URL],
    ["SFApp/AO/1.3.99", "productHome", ONE_STORE_URL],
    ["SFApp/IA/3.22.9", "productHome", APP_STORE_URL],
    ["SFApp/AA/1.4.5", "conversation", PLAY_STORE_URL],
    ["SFApp/AC/1.5.5", "conversation", PLAY_STORE_URL],
    ["SFApp/AO/1.5.6", "conversation", ONE_STORE_URL],
    ["SFApp/IA/3.25.0", "conversation", APP_STORE_URL],
  ] as const)("%s below the %s minimum: the update notice and a link to its store, not the screen", (token, feature, store) => {
    gate(token, feature);
    expect(screen.queryByText("화면 내용")).toBeNull();
    expect(screen.getByRole("heading", { name: APP_UPDATE_TITLE })).toBeTruthy();
    expect(screen.getByRole("region", { name: APP_UPDATE_TITLE }).textContent).toContain("업데이트해 주세요");
    expect(screen.getByRole("link", { name: APP_UPDATE_BUTTON }).getAttribute("href")).toBe(store);
  });

  it.each([
    ["SFApp/AA/1.3.0", "productHome"],
    ["SFApp/AC/1.4.0", "productHome"],
    ["SFApp/AO/1.4.0", "productHome"],
    ["SFApp/IA/3.23.0", "productHome"],
    ["SFApp/AA/1.4.6", "conversation"],
    ["SFApp/AC/1.5.6", "conversation"],
    ["SFApp/AO/1.5.7", "conversation"],
    ["SFApp/IA/3.26.0", "conversation"],
    ["SFApp/AA/-1", "conversation"],
    ["", "conversation"],
    ["", "productHome"],
  ] as const)("%s (empty: a browser) at or above the %s minimum: the screen", (token, feature) => {
    gate(token, feature);
    expect(screen.getByText("화면 내용")).toBeTruthy();
    expect(screen.queryByTestId("app-update")).toBeNull();
  });

  it("the store of each app channel; browsers have none", () => {
    expect(["AA", "AC", "AO", "IA", "AW", "IW"].map(storeUrlFor)).toEqual([PLAY_STORE_URL, PLAY_STORE_URL, ONE_STORE_URL, APP_STORE_URL, "", ""]);
  });
});
