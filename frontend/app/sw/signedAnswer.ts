// Signed API answers in a cache (docs/signature.md, "Answers from the
// service worker's cache"). The edge signs an answer for the request token the
// page sent; a cached answer comes back to a later request with another token.
// Rather than re-sign it (the worker would vouch for bytes it did not check)
// the worker keeps the token the answer was signed for beside it, and the page
// checks the cached answer against that token: the body is the one the server
// signed, byte for byte.

/** The answer header holding the request token a cached answer was signed for. */
export const SIGNED_FOR = "X-SF-Signed-For";
/** The answer header saying when the worker stored the answer (ms since epoch). */
export const CACHED_AT = "X-SF-Cached-At";

/**
 * keepSigned makes the copy of a network answer that goes into the cache: a
 * 200 only (an error or a refusal is not a list to show later), with the
 * request's token and the time beside the signature. The body is the decoded
 * body fetch gave, so the encoding headers of the wire go.
 */
export async function keepSigned(request: Request, response: Response, now = Date.now()): Promise<Response | null> {
  if (response.status !== 200) return null;
  const token = request.headers.get("X-Request-Token");
  if (!token || !response.headers.get("Authorization")) return null;
  const headers = new Headers(response.headers);
  headers.delete("Content-Encoding");
  headers.delete("Content-Length");
  headers.set(SIGNED_FOR, token);
  headers.set(CACHED_AT, String(now));
  return new Response(await response.arrayBuffer(), { status: 200, statusText: response.statusText, headers });
}
