import { useEffect, useState } from "react";
import { Link } from "react-router";
import { EventBlock } from "~/components/product/ListScreen";
import { TitleBar } from "~/components/TitleBar/TitleBar";
import { useShell } from "~/shell/ShellProvider";
import { http } from "~/utils/api";
import { pageTitle } from "~/utils/meta";
import { API, getEvents, type EventT } from "~/utils/storeApi";
import { applyWallet, useUser, type WalletBalances } from "~/utils/userStore";
import { bonusBanners, currentDevice } from "~/utils/device";
import * as s from "~/components/product/cs.css";
import * as p from "~/components/product/product.css";
import * as c from "~/components/product/csForm.css";

export const meta = () => [{ title: pageTitle("신규 가입 혜택") }];

export default function Screen() {
  const shell = useShell();
  const user = useUser();
  const [ev, setEv] = useState<EventT | null>(null);
  const [claimed, setClaimed] = useState(false);
  useEffect(() => {
    getEvents("/events/join").then((e) => setEv(e.events[0] ?? null), () => {});
  }, []);
  const claim = async () => {
    if (!shell.requireMember()) return;
    try {
      const a = await http<{ wallet?: WalletBalances }>(`${API}/wallet/join-bonus`, { method: "POST" });
      setClaimed(true);
      applyWallet(a.wallet);
      shell.toast("가입 보너스가 지급되었습니다.");
    } catch (e) {
      shell.toast((e as Error).message || "보너스를 받지 못했습니다.");
    }
  };
  // The join bonus is not offered in the iOS app (seed §6).
  if (!bonusBanners(currentDevice().channel)) {
    return (
      <section aria-label="신규 가입 혜택" className={p.page}>
        <TitleBar title="신규 가입 혜택" />
        <p className={p.empty}>이 앱에서는 진행하지 않는 이벤트입니다.</p>
      </section>
    );
  }
  return (
    <section aria-label="신규 가입 혜택" className={p.page}>
      <TitleBar title="신규 가입 혜택" />
      {ev ? <EventBlock ev={ev} heading="h2" /> : <p className={p.empty}>진행 중인 가입 이벤트가 없습니다.</p>}
      <div className={s.form}>
        {user.isLogin ? (
          <button type="button" className={s.button} onClick={claim} disabled={claimed}>
            {claimed ? "지급 완료" : "가입 보너스 받기"}
          </button>
        ) : (
          <Link className={`${s.button} ${c.centered}`} to={`/nuxgin?url=${encodeURIComponent("/join/event.asp")}`}>
            가입하고 혜택 받기
          </Link>
        )}
      </div>
    </section>
  );
}
