// Sharing a work's link: the system share sheet (Web Share API) where the
// browser has one, the clipboard otherwise. The link itself previews in a
// chat through the edge's Open Graph tags (edge/README.md "Share previews").

export type ShareOutcome = "shared" | "copied" | "cancelled";

type ShareNav = {
  share?: (data: ShareData) => Promise<void>;
  clipboard?: { writeText(text: string): Promise<void> };
};

// shareLink shares url; copy is the last resort for a browser without the
// async clipboard (or refusing it). A reader closing the share sheet
// (AbortError) shared nothing and is told nothing; any other failure of the
// sheet falls back to copying, so the button always does something.
export async function shareLink(nav: ShareNav, data: { url: string; title: string }, copy: (text: string) => void): Promise<ShareOutcome> {
  if (typeof nav.share === "function") {
    try {
      await nav.share({ url: data.url, title: data.title });
      return "shared";
    } catch (e) {
      if (e instanceof Error && e.name === "AbortError") return "cancelled";
    }
  }
  try {
    if (!nav.clipboard) throw new Error("no clipboard");
    await nav.clipboard.writeText(data.url);
  } catch {
    copy(data.url);
  }
  return "copied";
}

// copyWithSelection copies through a selected textarea: browsers without
// navigator.clipboard (or outside a secure context).
export function copyWithSelection(text: string) {
  const ta = document.createElement("textarea");
  ta.value = text;
  document.body.appendChild(ta);
  ta.select();
  document.execCommand("copy");
  ta.remove();
}
