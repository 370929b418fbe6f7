// Webtoon reading that flows (follow.ts has the rules): the episodes that
// followed the one opened, each in its own section, and what stands after
// the last: a line that brings the next one in as it nears the screen, or
// the unlock sheet inline.
import { useEffect, useRef, useState, type RefObject } from "react";
import { UnlockSheet } from "~/components/detail/UnlockSheet";
import type { UnlockOption } from "~/components/detail/unlock";
import { currentDevice, shownMoney } from "~/utils/device";
import type { Vol } from "~/utils/storeApi";
import type { UserView } from "~/utils/userStore";
import { total } from "./media";
import { nextStep } from "./follow";
import { visiblePages } from "./nav";
import { useEntitlement, useManifest } from "./useVolumeMedia";
import { WebtoonStrip } from "./ViewerPages";
import * as s from "./viewer.css";

/** One followed episode: its own entitlement and manifest, its pages, its title as a heading. */
export function FollowedEpisode(props: { pid: string; vol: Vol; isLogin: boolean; width: number; onFull: (no: number, full: boolean) => void }) {
  const { pid, vol, isLogin, width, onFull } = props;
  const { auth, authDone } = useEntitlement(pid, vol.no, isLogin, false);
  const manifest = useManifest(pid, vol.no, !!vol.mediaBase || !!vol.isEarly);
  const full = !!auth?.isAuth && !!auth.token;
  const ready = authDone && manifest !== undefined;
  const shown = ready && manifest ? visiblePages(full, total(manifest), manifest.previewPages) : 0;
  const ref = useRef<HTMLDivElement>(null);
  useEffect(() => {
    if (ready) onFull(vol.no, full);
  }, [ready, full, vol.no, onFull]);
  return (
    <section className={s.followed} data-episode={vol.no} data-testid="follow-episode" aria-labelledby={`ep-${vol.no}`}>
      <h2 className={s.followTitle} id={`ep-${vol.no}`}>
        {vol.title}
      </h2>
      <WebtoonStrip no={vol.no} manifest={manifest} shown={shown} token={full ? auth!.token! : null} width={width} curPage={1} stripRef={ref} end={null} />
    </section>
  );
}

type GateProps = {
  vol: Vol | null;
  tailFull: boolean;
  /** the unlock options of vol for this reader, null while they are asked */
  options: UnlockOption[] | null;
  user: UserView;
  waitLeft: number;
  title: string;
  follow: (v: Vol) => void;
  choose: (v: Vol, o: UnlockOption) => void;
  preview: (v: Vol) => void;
};

/** What stands after the last episode on the page. */
export function NextGate({ vol, tailFull, options, user, waitLeft, title, follow, choose, preview }: GateProps) {
  const step = nextStep(tailFull, !!vol, options);
  const line = useRef<HTMLDivElement>(null);
  const [asked, setAsked] = useState(false);
  useNear(step === "follow" && !asked ? line : null, () => {
    setAsked(true);
    follow(vol!);
  });
  if (step === "none" || step === "wait" || !vol) return null;
  if (step === "follow")
    return (
      <div ref={line} className={s.followLine} data-testid="follow-line" aria-hidden="true">
        {vol.title}
      </div>
    );
  return (
    <div className={s.followSheet}>
      <UnlockSheet
        inline
        vol={vol}
        title={title}
        options={options ?? []}
        balance={user.isLogin ? { ...shownMoney(currentDevice().channel, user.side), mileage: user.side.blueMileage } : null}
        waitLeft={waitLeft}
        onChoose={(o) => choose(vol, o)}
        onPreview={() => preview(vol)}
        onClose={() => {}}
      />
    </div>
  );
}

/** useNear calls near once the element comes within a screen of the viewport. */
function useNear(ref: RefObject<HTMLElement | null> | null, near: () => void) {
  const cb = useRef(near);
  cb.current = near;
  useEffect(() => {
    const el = ref?.current;
    if (!el) return;
    const io = new IntersectionObserver((es) => es.some((e) => e.isIntersecting) && cb.current(), { rootMargin: "0px 0px 100% 0px" });
    io.observe(el);
    return () => io.disconnect();
  }, [ref]);
}
