// SHA-256 of bytes as lowercase hex. Uses crypto.subtle; falls back to a small
// pure implementation where subtle is missing (pages served over plain http
// from a non-localhost address are not a secure context, so subtle is absent).
// The fallback is a chunk of its own, loaded only by such a page: every other
// page has Web Crypto and the fallback's bytes were on the home's JavaScript
// budget (issue 23).

export async function sha256Hex(data: Uint8Array): Promise<string> {
  const subtle = globalThis.crypto?.subtle;
  if (subtle) {
    const digest = await subtle.digest("SHA-256", data as BufferSource);
    return toHex(new Uint8Array(digest));
  }
  const { sha256Fallback } = await import("./sha256Fallback");
  return toHex(sha256Fallback(data));
}

function toHex(bytes: Uint8Array): string {
  let s = "";
  for (const b of bytes) s += b.toString(16).padStart(2, "0");
  return s;
}
