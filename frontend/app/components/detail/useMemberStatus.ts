// What the signed-in member has of one work (sales status, coupons), loaded
// on arrival and after every unlock, and the wait-for-free countdown.
import { useCallback, useEffect, useState } from "react";
import { getCoupons, getStatus, type CouponInfo, type SalesStatus } from "~/utils/storeApi";
import { loadSideInfo } from "~/utils/userStore";

type Member = { isLogin: boolean; uid: string; adultLevel: number };

export function useMemberStatus(pid: string, user: Member) {
  const [status, setStatus] = useState<SalesStatus | null>(null);
  const [coupons, setCoupons] = useState<CouponInfo | null>(null);
  const [now, setNow] = useState(() => Date.now());

  const refresh = useCallback(async () => {
    if (!user.isLogin) return;
    const [st, cp] = await Promise.all([getStatus(pid).catch(() => null), getCoupons(pid).catch(() => null)]);
    setStatus(st);
    setCoupons(cp);
    setNow(Date.now());
  }, [user.isLogin, pid]);

  // Loaded again when the member's adult level changes: the writer answers
  // an adult work by it.
  useEffect(() => {
    void refresh();
    // The unlock sheet shows the balance from the one side info.
    if (user.isLogin && user.uid) void loadSideInfo();
  }, [refresh, user.isLogin, user.uid, user.adultLevel]);

  // The wait-for-free countdown ticks while the coupon is charging.
  const wait = coupons?.WCPInfo?.waitTime ?? 0;
  const [waitLeft, setWaitLeft] = useState(wait);
  useEffect(() => {
    setWaitLeft(wait);
    if (wait <= 0) return;
    const started = Date.now();
    const t = setInterval(() => {
      const left = wait - Math.floor((Date.now() - started) / 1000);
      setWaitLeft(left);
      if (left <= 0) {
        clearInterval(t);
        void refresh();
      }
    }, 1000);
    return () => clearInterval(t);
  }, [wait, refresh]);

  return { status, coupons, now, waitLeft, refresh };
}
