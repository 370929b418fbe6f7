// The row under the hero: zzim, new-volume alarm, share and (a mobile
// browser) open in the app.
import { useState } from "react";
import { useShell } from "~/shell/ShellProvider";
import { browserAppOpenDeps, openAppFromWeb } from "~/shell/appOpen";
import { currentDevice } from "~/utils/device";
import { sectionPath } from "~/utils/layout";
import type { ProdInfo, SalesStatus } from "~/utils/storeApi";
import { COPIED, setAlarm } from "~/utils/zzim";
import { alarmPush, askPermission, browserPushEnv, pushMessage } from "~/utils/webPush";
import { alarmState } from "./alarmState";
import { copyWithSelection, shareLink } from "./share";
import * as s from "./detail.css";

type Props = { prod: ProdInfo; uid: string; status: SalesStatus | null; zzimOn: boolean; onZzim: () => void };

export function DetailActions({ prod: p, uid, status, zzimOn, onZzim }: Props) {
  const shell = useShell();
  const [alarmClicked, setAlarmOn] = useState<boolean | null>(null);
  const alarm = alarmState(alarmClicked, status, p.isAlarm);

  const toggleAlarm = async () => {
    if (!shell.requireMember()) return;
    // The permission prompt belongs to this click (never to page load), so
    // it starts before anything is awaited.
    const env = browserPushEnv();
    const permission = alarm ? null : askPermission(env);
    const v = await setAlarm(uid, p.pid, !alarm);
    if (v === null) return;
    setAlarmOn(v);
    const problem = pushMessage(await alarmPush(p.pid, v, permission, env));
    shell.toast(problem ?? (v ? "새 회차 알림을 받습니다." : "새 회차 알림을 끕니다."), problem ? 3000 : 2000);
  };
  const share = async () => {
    const url = `${window.location.origin}/${sectionPath(p.section)}/detail/${p.pid}`;
    if ((await shareLink(navigator, { url, title: p.title }, copyWithSelection)) === "copied") shell.toast(COPIED, 2000);
  };

  // A mobile browser may open this work in the app (seed §4, §9): Android
  // falls back to its store, iOS asks with the app-only message.
  const dev = currentDevice();
  const web = dev.isApp ? null : dev;
  const openInApp = () =>
    openAppFromWeb(
      `/${sectionPath(p.section)}/detail/${p.pid}`,
      dev,
      browserAppOpenDeps((content) => shell.confirm({ content, leftLabel: "취소", rightLabel: "앱스토어로 이동" })),
    );

  return (
    <div className={s.actions}>
      {/* A toggle keeps its name, the label shown, and says its state by aria-pressed
          (a name "찜하기" / "찜 해제" over the label "찜" was axe's label-content-name-mismatch). */}
      <button type="button" className={s.action({ on: zzimOn })} onClick={onZzim} aria-pressed={zzimOn}>
        <span aria-hidden="true">{zzimOn ? "♥" : "♡"}</span>찜
      </button>
      <button type="button" className={s.action({ on: alarm })} onClick={toggleAlarm} aria-pressed={alarm} aria-label="알림">
        <Bell on={alarm} />
        알림
      </button>
      <button type="button" className={s.action()} onClick={share} aria-label="공유">
        <span aria-hidden="true">↗</span>공유
      </button>
      {web && (web.isAndroid || web.isIOS) && (
        <button type="button" className={s.action()} onClick={openInApp} data-testid="open-in-app">
          <span aria-hidden="true">⤴</span>앱에서 보기
        </button>
      )}
    </div>
  );
}

function Bell({ on }: { on: boolean }) {
  return (
    <svg width="16" height="16" viewBox="0 0 24 24" aria-hidden="true">
      <path d="M6 17h12l-1.5-2V10a4.5 4.5 0 0 0-9 0v5L6 17zm4 2a2 2 0 0 0 4 0" fill={on ? "currentColor" : "none"} stroke="currentColor" strokeWidth="1.8" strokeLinejoin="round" />
    </svg>
  );
}
