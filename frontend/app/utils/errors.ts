// Error page contents by status (seed §2, §8).
import { isRouteErrorResponse } from "react-router";
import { isHttpError } from "./http";

export const OFFLINE = 40;
export const NOT_FOUND_TEXT = "This page could not be found";
/** A product address without a work (the edge's words for an unknown pid). */
export const NO_PRODUCT_TEXT = "작품을 찾을 수 없습니다.";
/** The seed's text of a 500 page that has no message of its own (§8). */
export const UNKNOWN_500_TEXT = "Unknown middleware";

/** The seed's text for a status when the error carried none. */
function defaultText(status: number, fallback?: string): string | undefined {
  if (status === 404) return NOT_FOUND_TEXT;
  if (status === 500) return UNKNOWN_500_TEXT;
  return fallback;
}

export type ErrorAction = "retry" | "home" | "refresh";
export type ErrorContent = {
  status: number;
  title: string;
  description: string;
  /** customer-service link (non-404 errors) */
  showCs: boolean;
  action: ErrorAction;
  /** the wifi-off graphic of connection errors */
  wifiOff: boolean;
};

export function errorContent(status: number): ErrorContent {
  const base = { status, showCs: status !== 404, wifiOff: false };
  if (status === OFFLINE) {
    return { ...base, title: "오프라인 상태입니다", description: "인터넷 연결 상태를 확인해 주세요.", action: "retry", wifiOff: true };
  }
  const action: ErrorAction = status >= 400 && status < 500 ? "home" : "refresh";
  switch (status) {
    case 400:
      return { ...base, action, title: "페이지가 작동하지 않습니다", description: "잘못된 요청입니다." };
    case 403:
      return { ...base, action, title: "페이지에 접근할 수 없습니다", description: "접근이 거부되었습니다." };
    case 404:
      return {
        ...base,
        action,
        title: "페이지를 찾을 수 없습니다",
        description: "페이지가 삭제되었거나 이동되었습니다. 올바른 경로로 접속해 주세요.",
      };
    default:
      return {
        ...base,
        action,
        title: "이용에 불편을 드려 죄송합니다",
        description: "일시적인 문제가 발생했습니다. 잠시 후 다시 시도해 주세요.",
      };
  }
}

/** PageError is thrown by loaders for statuses that are not HTTP statuses (40 offline). */
export class PageError extends Error {
  constructor(
    readonly status: number,
    message?: string,
  ) {
    super(message ?? String(status));
    this.name = "PageError";
  }
}

/** What a thrown route error means for the error page: a status and an optional message. */
export function describeError(error: unknown): { status: number; message?: string } {
  if (isRouteErrorResponse(error)) {
    const d = error.data as { message?: string } | string | undefined;
    const message = typeof d === "string" ? d : d?.message;
    return { status: error.status, message: message || defaultText(error.status, error.statusText) };
  }
  if (error instanceof PageError) return { status: error.status, message: error.message };
  if (isHttpError(error)) {
    if (error.kind === "network") return { status: OFFLINE };
    if (error.status === 408) return { status: 408, message: "time out" };
    const status = error.status >= 400 ? error.status : 500;
    return { status, message: error.message || defaultText(status) };
  }
  return { status: 500, message: (error instanceof Error && error.message) || UNKNOWN_500_TEXT };
}
