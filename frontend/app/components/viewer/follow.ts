// Webtoon reading that flows (issue 34): past the end of an episode the next
// one follows on the same page when the reader may read it, and the unlock
// sheet stands there when not. Pure rules; FollowOn.tsx renders them.
// It imports nothing of the detail's unlock rules: the viewer's own chunk
// takes episodeAt and episodeURL, and the rules come with FollowOn's chunk.

/**
 * nextStep: what stands after an episode the reader has read; readable is
 * canRead (detail/unlock.ts) of the next episode's options, null while asked.
 * - "none": nothing (no next episode, or the episode ended in a preview:
 *   its own end panel already says how to read on).
 * - "follow": free, owned or rented: its pages load below.
 * - "sheet": the unlock sheet, inline. A wait-for-free coupon that is ready
 *   is offered there, first and enabled: one tap spends it and the episode
 *   follows, but scrolling alone never spends a coupon the reader waited a
 *   day for.
 */
export function nextStep(tailFull: boolean, hasNext: boolean, readable: boolean | null): "none" | "follow" | "sheet" | "wait" {
  if (!tailFull || !hasNext) return "none";
  // The member's entitlements are still being asked.
  if (readable === null) return "wait";
  return readable ? "follow" : "sheet";
}

/**
 * episodeAt: the episode the reader is in: the last whose section starts
 * above the reading line (a third down the screen). tops are the sections'
 * tops in the viewport, in page order, with their episode numbers.
 */
export function episodeAt(sections: { no: number; top: number }[], line: number): number | null {
  let cur: number | null = null;
  for (const s of sections) if (s.top <= line) cur = s.no;
  return cur ?? sections[0]?.no ?? null;
}

/** The address of the episode the reader is in, the other parameters kept. */
export function episodeURL(href: string, no: number): string {
  const u = new URL(href);
  u.searchParams.delete("vol");
  u.searchParams.set("no", String(no));
  return u.pathname + u.search + u.hash;
}
