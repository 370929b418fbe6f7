import { describe, expect, it } from "vitest";
import { describeError, errorContent, NOT_FOUND_TEXT, OFFLINE, PageError, UNKNOWN_500_TEXT } from "./errors";
import { UNSAFE_ErrorResponseImpl as ErrorResponseImpl } from "react-router";
import { HttpError } from "./http";

describe("error page contents", () => {
  it("40 offline: retry, wifi-off, CS link", () => {
    expect(errorContent(OFFLINE)).toMatchObject({ title: "오프라인 상태입니다", action: "retry", wifiOff: true, showCs: true });
    expect(errorContent(OFFLINE).description).toContain("인터넷 연결");
  });
  it("400, 403, 404 get home buttons; only 404 lacks the CS link", () => {
    expect(errorContent(400)).toMatchObject({ title: "페이지가 작동하지 않습니다", description: "잘못된 요청입니다.", action: "home", showCs: true });
    expect(errorContent(403)).toMatchObject({ title: "페이지에 접근할 수 없습니다", description: "접근이 거부되었습니다.", action: "home", showCs: true });
    expect(errorContent(404)).toMatchObject({ title: "페이지를 찾을 수 없습니다", action: "home", showCs: false });
    expect(errorContent(408)).toMatchObject({ action: "home", showCs: true });
  });
  it("other codes apologise and offer refresh", () => {
    for (const c of [500, 501, 503]) expect(errorContent(c)).toMatchObject({ title: "이용에 불편을 드려 죄송합니다", action: "refresh", showCs: true });
  });
  it("describes thrown errors", () => {
    expect(describeError(new PageError(40, "network connection broken"))).toEqual({ status: 40, message: "network connection broken" });
    expect(describeError(new HttpError("api", 408, 408, "time out"))).toEqual({ status: 408, message: "time out" });
    expect(describeError(new HttpError("network", 0, 0, "x"))).toEqual({ status: 40 });
    expect(describeError(new HttpError("api", 404, 404, "gone"))).toEqual({ status: 404, message: "gone" });
    expect(describeError(new Error("x"))).toMatchObject({ status: 500 });
    expect(NOT_FOUND_TEXT).toBe("This page could not be found");
    // A 500 without a message of its own shows the seed's 500 text.
    expect(UNKNOWN_500_TEXT).toBe("Unknown middleware");
    expect(describeError("boom")).toEqual({ status: 500, message: "Unknown middleware" });
    expect(describeError(new Error(""))).toEqual({ status: 500, message: "Unknown middleware" });
    expect(describeError(new Error("x"))).toEqual({ status: 500, message: "x" });
    expect(describeError(new HttpError("api", 500, 500, ""))).toEqual({ status: 500, message: "Unknown middleware" });
    expect(describeError(new ErrorResponseImpl(500, "Internal Server Error", null))).toEqual({ status: 500, message: "Unknown middleware" });
    expect(describeError(new ErrorResponseImpl(404, "Not Found", null))).toEqual({ status: 404, message: NOT_FOUND_TEXT });
    expect(describeError(new ErrorResponseImpl(503, "Service Unavailable", { message: "down" }))).toEqual({ status: 503, message: "down" });
  });
});
