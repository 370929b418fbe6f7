import { useEffect, useRef } from "react";
import { data, Link, redirect, useLoaderData, useLocation, useRevalidator } from "react-router";
import { NO_PRODUCT_TEXT } from "~/utils/errors";
import { Detail } from "~/components/detail/Detail";
import { tracker } from "~/shell/services";
import { useShell } from "~/shell/ShellProvider";
import { currentDevice } from "~/utils/device";
import { sectionPath } from "~/utils/layout";
import { pageTitle } from "~/utils/meta";
import { getDetail } from "~/utils/storeApi";
import { guard } from "~/utils/routeData";
import { adultGate } from "~/utils/user";
import { setToggle19, useUser } from "~/utils/userStore";
import { isHttpError } from "~/utils/http";
import * as s from "~/components/detail/detail.css";

export const meta = ({ data }: { data?: { prodInfo?: { title?: string } } }) => [{ title: pageTitle(data?.prodInfo?.title || "작품 상세") }];

const NEW_SECTIONS = ["webtoon", "comic", "novel"];

/**
 * Product detail at the new addresses (/webtoon|comic|novel/detail/{pid}) and
 * the legacy per-section ones older apps open (/{section}/detail/{pid} or
 * /{section}/detail?pid=...): a legacy or mismatched address is replaced by
 * the new one.
 */
export async function clientLoader({ request, params }: { request: Request; params: { section?: string; pid?: string } }) {
  const url = new URL(request.url);
  const pid = params.pid || url.searchParams.get("pid") || url.searchParams.get("productId") || "";
  if (!pid) throw data({ message: NO_PRODUCT_TEXT }, { status: 404 });
  const d = await guard(getDetail(pid, request.signal));
  const want = sectionPath(d.prodInfo.section);
  if (params.section !== want || !params.pid || !NEW_SECTIONS.includes(params.section ?? "")) {
    const keep = new URLSearchParams(url.search);
    keep.delete("pid");
    keep.delete("productId");
    const q = keep.toString();
    throw redirect(`/${want}/detail/${encodeURIComponent(d.prodInfo.pid)}${q ? `?${q}` : ""}`);
  }
  return d;
}

export default function Screen() {
  const d = useLoaderData<typeof clientLoader>();
  const user = useUser();
  const shell = useShell();
  const location = useLocation();
  // Read by the open's effect without making it depend on them: a tab switch
  // changes the address and reloads the data, and is not a new open.
  const now = useRef({ url: "", prod: d.prodInfo });
  now.current = { url: location.pathname + location.search, prod: d.prodInfo };
  const gated = d.adultVerificationNeeded;
  // One detail view per open of a work (seed §4 sends no page view here):
  // switching tabs keeps the work, another work or coming back is a new open.
  // Behind the adult gate the work is not shown, so it is not counted.
  useEffect(() => {
    if (gated) return;
    const { url, prod } = now.current;
    tracker.viewContent({ url, pid: prod.pid, section: prod.section, genreId: prod.genreId }, currentDevice().channel);
  }, [d.prodInfo.pid, gated]);
  if (d.adultVerificationNeeded) {
    return <AdultGate />;
  }
  return <Detail key={d.prodInfo.pid} detail={d} />;
}

/**
 * The 19 placeholder of an adult work the reader may not see (the edge gives
 * only pid, section and age): what it offers follows adultGate, the rule the
 * writer's refusals follow too (contract/cases/audience.json). Verification is
 * asked only of readers who are not adult (seed §5).
 */
function AdultGate() {
  const user = useUser();
  const shell = useShell();
  const location = useLocation();
  const revalidator = useRevalidator();
  const here = location.pathname + location.search;
  const gate = adultGate(currentDevice().isAdultChannel, user.isLogin, user.adultLevel);
  const toggleOn = async () => {
    try {
      await setToggle19(true);
      // The audience cookie changed: the edge now answers the work itself.
      revalidator.revalidate();
    } catch (e) {
      shell.toast(isHttpError(e) ? e.message : "잠시 후 다시 시도해 주세요.");
    }
  };
  const line =
    gate === "notInApp"
      ? "이 앱에서는 성인 작품을 이용할 수 없습니다."
      : gate === "teen"
        ? "만 19세 미만은 성인 작품을 이용할 수 없습니다."
        : gate === "toggle"
          ? "성인 작품 보기(19)를 켜면 이용할 수 있습니다."
          : gate === "none"
            ? "성인 인증이 확인되었습니다. 작품을 다시 불러와 주세요."
            : "19세 이상 성인 인증 후 이용할 수 있습니다.";
  return (
    <div className={s.gate} data-testid="adult-gate" data-gate={gate}>
      <p className={s.gateMark} aria-hidden="true">
        19
      </p>
      <p className={s.gateTitle}>청소년 이용 불가 작품입니다.</p>
      <p className={s.gateLine}>{line}</p>
      {gate === "login" && (
        <button type="button" className={`${s.primary} ${s.gateAction({ as: "button" })}`} onClick={() => shell.goLogin(undefined, true)}>
          로그인하고 성인 인증하기
        </button>
      )}
      {gate === "none" && (
        // The page knows an adult with the toggle on whose answer was the gate (a cookie changed meanwhile): load again.
        <button type="button" className={`${s.primary} ${s.gateAction({ as: "button" })}`} onClick={() => revalidator.revalidate()}>
          다시 불러오기
        </button>
      )}
      {gate === "verify" && (
        <Link to={`/adultverification?url=${encodeURIComponent(here)}`} className={`${s.primary} ${s.gateAction({ as: "link" })}`}>
          성인 인증하기
        </Link>
      )}
      {gate === "toggle" && (
        <button type="button" className={`${s.primary} ${s.gateAction({ as: "button" })}`} onClick={toggleOn}>
          성인 작품 보기 켜기
        </button>
      )}
    </div>
  );
}
