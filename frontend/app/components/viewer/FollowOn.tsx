// Webtoon reading that flows (follow.ts has the rules): the episodes that
// followed the one opened, each in its own section, and what stands after
// the last: a line that brings the next one in as it nears the screen, or
// the unlock sheet inline.
import { useCallback, useEffect, useRef, useState, type RefObject } from "react";
import { UndoBar } from "~/components/detail/UndoBar";
import { UnlockSheet } from "~/components/detail/UnlockSheet";
import { canRead, type UnlockOption } from "~/components/detail/unlock";
import { useMemberStatus } from "~/components/detail/useMemberStatus";
import { useUnlock } from "~/components/detail/useUnlock";
import { currentDevice, shownMoney } from "~/utils/device";
import { detailState, type Detail, type Vol } from "~/utils/storeApi";
import type { UserView } from "~/utils/userStore";
import { withVolume } from "~/utils/volumes";
import { total } from "./media";
import { nextStep } from "./follow";
import { targetVol, visiblePages } from "./nav";
import { useEntitlement, useManifest } from "./useVolumeMedia";
import { WebtoonStrip } from "./ViewerPages";
import * as s from "./viewer.css";

type Props = {
  detail: Detail;
  /** the episode opened, read in full (this is mounted only then) */
  no: number;
  user: UserView;
  width: number;
  /** the episodes that followed, in order, each time they change */
  onChain: (chain: Vol[]) => void;
  preview: (no: number) => void;
};

/**
 * Everything after the opened episode: the episodes that followed it and
 * the gate after the last. A lazy chunk of the viewer (Viewer.tsx), with the
 * detail's unlock machinery it reuses.
 */
export default function WebtoonFollow({ detail, no, user, width, onChain, preview }: Props) {
  const p = detail.prodInfo;
  const [chain, setChain] = useState<Vol[]>([]);
  // The volumes known so far: a long work's pages of them join as the reader goes.
  const [vols, setVols] = useState(detail.volList);
  const [fullOf, setFullOf] = useState<Record<number, boolean>>({});
  useEffect(() => onChain(chain), [chain, onChain]);

  const tail = chain.at(-1)?.no ?? no;
  const tailFull = tail === no || !!fullOf[tail];
  const tailNext = targetVol(vols.map((v) => v.no), tail, "N");
  useEffect(() => {
    if (!tailFull || tailNext !== null) return;
    let cancel = false;
    withVolume({ ...detail, volList: vols }, tail)
      .then((d) => !cancel && d.volList.length > vols.length && setVols(d.volList))
      .catch(() => {});
    return () => {
      cancel = true;
    };
  }, [tailFull, tailNext, tail, detail, vols]);
  const nextVol = tailNext === null ? null : (vols.find((v) => v.no === tailNext) ?? null);

  const member = { isLogin: user.isLogin, uid: user.authInfo?.uid ?? "", adultLevel: user.adultLevel };
  const { status, coupons, now, waitLeft, refresh } = useMemberStatus(p.pid, member);
  const follow = useCallback((v: Vol) => setChain((c) => (c.some((x) => x.no === v.no) ? c : [...c, v])), []);
  const state = detailState(detail.header.code);
  const unlock = useUnlock({ ...detail, volList: vols }, state, { status, coupons, now, refresh }, (n) => {
    const v = vols.find((x) => x.no === n);
    if (v) follow(v);
  });
  // A visitor has no entitlements to ask; a member's are asked once (status).
  const options = nextVol && (!user.isLogin || status) ? (state === "serviceOff" ? [] : unlock.optionsFor(nextVol)) : null;
  const onFull = useCallback((n: number, f: boolean) => setFullOf((m) => (m[n] === f ? m : { ...m, [n]: f })), []);

  return (
    <>
      {chain.map((v) => (
        <FollowedEpisode key={v.no} pid={p.pid} vol={v} isLogin={user.isLogin} width={width} onFull={onFull} />
      ))}
      <NextGate
        key={nextVol?.no ?? 0}
        vol={nextVol}
        tailFull={tailFull}
        options={options}
        user={user}
        waitLeft={waitLeft}
        title={p.title}
        follow={follow}
        choose={unlock.choose}
        preview={(v) => preview(v.no)}
      />
      {unlock.pending && <UndoBar pending={unlock.pending} />}
    </>
  );
}

/** One followed episode: its own entitlement and manifest, its pages, its title as a heading. */
function FollowedEpisode(props: { pid: string; vol: Vol; isLogin: boolean; width: number; onFull: (no: number, full: boolean) => void }) {
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
function NextGate({ vol, tailFull, options, user, waitLeft, title, follow, choose, preview }: GateProps) {
  const step = nextStep(tailFull, !!vol, options && canRead(options));
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
