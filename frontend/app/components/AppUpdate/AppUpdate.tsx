// Screens that need a newer app (seed §5, minimum app versions): in an app
// below the screen's minimum the screen's content gives way to a notice with
// the way to the app's store page to update it. Browsers always see the screen.
import { useId } from "react";
import { storeUrlFor } from "~/shell/appOpen";
import { currentDevice, MIN_APP_VERSIONS, supportsFeature, type AppFeature, type DeviceInfo } from "~/utils/device";
import * as s from "./AppUpdate.css";

export const APP_UPDATE_TITLE = "앱 업데이트가 필요합니다";
export const APP_UPDATE_BODY = "이 화면을 이용하려면 앱을 최신 버전으로 업데이트해 주세요.";
export const APP_UPDATE_BUTTON = "앱 업데이트하기";

type Device = Pick<DeviceInfo, "isApp" | "channel" | "appVersion">;

/** The notice alone: what an outdated app shows instead of a screen. */
export function AppUpdateRequired({ feature, device = currentDevice() }: { feature: AppFeature; device?: Device }) {
  const id = useId();
  const min = (MIN_APP_VERSIONS[feature] as Record<string, string>)[device.channel];
  const store = storeUrlFor(device.channel);
  return (
    <section className={s.box} aria-labelledby={id} data-testid="app-update" data-feature={feature}>
      <h1 id={id} className={s.title}>
        {APP_UPDATE_TITLE}
      </h1>
      <p className={s.body}>
        {APP_UPDATE_BODY}
        {min ? `\n(${min} 이상, 현재 ${device.appVersion})` : ""}
      </p>
      {store && (
        <a className={s.button} href={store} rel="noopener">
          {APP_UPDATE_BUTTON}
        </a>
      )}
    </section>
  );
}

/** AppUpdateGate: the screen (children) when the app supports it, otherwise the update notice. */
export function AppUpdateGate({ feature, children, device = currentDevice() }: { feature: AppFeature; children: React.ReactNode; device?: Device }) {
  if (supportsFeature(device, feature)) return <>{children}</>;
  return <AppUpdateRequired feature={feature} device={device} />;
}
