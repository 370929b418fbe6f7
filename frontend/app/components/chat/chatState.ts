// The chat's states (seed §4: "chat widget: script loaded on demand
// (loading/ready/failed)"). The store's own chat replaces the seed's widget;
// what it loads on demand is its connection (the member's conversation), and
// it shows the same three states: loading while that is under way, ready once
// it answered, failed (with a retry) when it did not.
export type ChatState = "loading" | "ready" | "failed";

/** The state after a load attempt ends. */
export const settled = (ok: boolean): ChatState => (ok ? "ready" : "failed");

/** What the reader is told in each state (the box to write in works only when ready). */
export const CHAT_TEXT: Record<ChatState, string> = {
  loading: "상담을 연결하고 있습니다.",
  ready: "안녕하세요, 고객센터입니다. 무엇을 도와드릴까요?",
  failed: "상담에 연결하지 못했습니다. 잠시 후 다시 시도해 주세요.",
};

/**
 * connect runs one on-demand load and reports the states it passes through:
 * loading at once, then ready or failed. A load superseded by a newer one
 * (a retry) reports nothing more.
 */
export function connector(onState: (s: ChatState) => void) {
  let seq = 0;
  return async (load: () => Promise<void>) => {
    const mine = ++seq;
    onState("loading");
    let ok = true;
    try {
      await load();
    } catch {
      ok = false;
    }
    if (mine === seq) onState(settled(ok));
  };
}
