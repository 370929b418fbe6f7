// Turns a helper error into what a route throws, so the ErrorBoundary shows the
// error page with the answer's status (seed §8: 400, 404, 500 open the error
// page with that status; a timeout opens 408 'time out'; no answer while
// offline is code 40).
import { data } from "react-router";
import { OFFLINE, PageError } from "./errors";
import { isHttpError } from "./http";

export function routeError(e: unknown): unknown {
  if (!isHttpError(e)) return e;
  if (e.kind === "network") {
    const offline = typeof navigator !== "undefined" && navigator.onLine === false;
    if (offline) return new PageError(OFFLINE, "network connection broken");
    return data({ message: e.message }, { status: 503 });
  }
  if (e.kind === "forged") return data({ message: "forged response" }, { status: 500 });
  return data({ message: e.message }, { status: e.status >= 400 ? e.status : 500 });
}
