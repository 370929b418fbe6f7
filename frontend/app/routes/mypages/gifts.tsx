import { Form, Link, useActionData, useLoaderData, useNavigation } from "react-router";
import { LibraryTabs } from "~/components/library/LibraryTabs";
import { TitleBar } from "~/components/TitleBar/TitleBar";
import * as p from "~/components/product/product.css";
import * as s from "~/components/library/library.css";
import { sectionPath } from "~/utils/layout";
import { giftLabel, loadGifts, receiveGift } from "~/utils/library";
import { pageTitle } from "~/utils/meta";
import { guard } from "~/utils/routeData";

export const meta = () => [{ title: pageTitle("선물함") }];

export async function clientLoader({ request }: { request: Request }) {
  return guard(loadGifts(request.signal));
}

/** Opening a gift moves it out of the box into the member's coupons. */
export async function clientAction({ request }: { request: Request }) {
  const id = Number((await request.formData()).get("id"));
  if (!Number.isInteger(id) || id <= 0) return { ok: false, message: "선물을 찾을 수 없습니다." };
  try {
    await receiveGift(id);
    return { ok: true, message: "선물을 받았습니다. 작품에서 바로 사용할 수 있어요." };
  } catch (e) {
    return { ok: false, message: (e as Error).message || "선물을 받지 못했습니다." };
  }
}

export default function Gifts() {
  const d = useLoaderData<typeof clientLoader>();
  const done = useActionData<typeof clientAction>();
  const nav = useNavigation();
  return (
    <section aria-label="선물함" className={p.page}>
      <TitleBar title="내 서재" />
      <LibraryTabs />
      {done && (
        <p role="status" className={p.controls}>
          {done.message}
        </p>
      )}
      {!d.login ? (
        <p className={p.empty}>
          로그인이 필요한 서비스입니다.
          <br />
          <Link to={`/nuxgin?url=${encodeURIComponent("/mypages/gifts")}`}>로그인하기</Link>
        </p>
      ) : d.list.length === 0 ? (
        <p className={p.empty}>받을 선물이 없습니다.</p>
      ) : (
        <ul className={p.rows} aria-label="받을 선물">
          {d.list.map((g) => (
            <li key={g.id} className={p.row} data-testid="gift-item">
              <div className={p.rowBody}>
                <p className={p.title}>{giftLabel(g)}</p>
                <p className={p.meta}>{new Date(g.expiresAt).toLocaleDateString("ko-KR")}까지 받을 수 있어요</p>
                {g.pid && (
                  <Link className={s.next} to={`/${sectionPath(g.section ?? "")}/detail/${encodeURIComponent(g.pid)}`}>
                    사용할 작품 보기
                  </Link>
                )}
              </div>
              <Form method="post">
                <input type="hidden" name="id" value={g.id} />
                <button type="submit" className={`${s.action} ${s.actionPrimary}`} disabled={nav.state !== "idle"} aria-label={`${giftLabel(g)} 받기`}>
                  받기
                </button>
              </Form>
            </li>
          ))}
        </ul>
      )}
    </section>
  );
}
