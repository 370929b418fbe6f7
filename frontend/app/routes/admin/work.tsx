import { Form, Link, useActionData, useLoaderData, useNavigation, useParams } from "react-router";
import * as a from "~/components/admin/analytics.css";
import { checkEarlyAccess, EARLY_PRICE_STEP, earlyOf, MAX_EARLY_COUNT, MAX_EARLY_PRICE, MIN_EARLY_PRICE } from "~/components/admin/earlyAccess";
import { StaffScreen, StaffScreenError, readStaff, staffSignInAction, type Staff } from "~/components/admin/StaffSignIn";
import * as s from "~/components/admin/works.css";
import { http } from "~/utils/api";
import { isHttpError } from "~/utils/http";
import { sectionPath } from "~/utils/layout";
import { pageTitle } from "~/utils/meta";

export const meta = () => [{ title: pageTitle("작품 설정") }, { name: "robots", content: "noindex" }];

/** The fields of the writer's work document this screen reads. */
type Work = { pid: string; section: string; title: string; hidden?: boolean; earlyCount?: number; earlyPrice?: number; rightToLeft?: boolean };
type Data = { staff: Staff | null; work: Work | null; message?: string };
type Done = { message?: string; field?: "earlyCount" | "earlyPrice"; saved?: boolean };

const ADMIN = "/admin/api/v1";
const won = (n: number) => `${n.toLocaleString("ko-KR")}원`;

/**
 * /admin/works/:pid: a work's settings as a content manager sets them
 * (issue 31, no screen before): for now its early access (미리보기, issue 32),
 * the number of episodes still to be released that are sold early and their
 * price; and a comic's page order (right to left for most licensed manga,
 * issue 34). Staff sign in with the writer's HttpOnly session (StaffSignIn); the
 * writer needs the catalog permission (content managers, operators).
 */
export async function clientLoader({ request, params }: { request: Request; params: { pid?: string } }): Promise<Data> {
  const staff = await readStaff(request.signal);
  if (!staff) return { staff: null, work: null };
  try {
    const r = await http<{ product: Work }>(`${ADMIN}/works/${encodeURIComponent(params.pid ?? "")}`, { signal: request.signal });
    return { staff, work: r.product };
  } catch (e) {
    if (!isHttpError(e)) throw e;
    if (e.status === 401) return { staff: null, work: null };
    return { staff, work: null, message: e.message };
  }
}

export async function clientAction({ request, params }: { request: Request; params: { pid?: string } }): Promise<Done | Response> {
  const form = await request.clone().formData();
  if (form.get("intent") === "order") {
    try {
      await http(`${ADMIN}/works/${encodeURIComponent(params.pid ?? "")}`, { method: "PATCH", json: { rightToLeft: form.get("order") === "rtl" } });
    } catch (e) {
      return { message: isHttpError(e) ? e.message : "저장하지 못했습니다." };
    }
    return { saved: true };
  }
  if (form.get("intent") !== "early") return staffSignInAction({ request });
  // Refused here first, with the writer's own rules; nothing is sent.
  const c = checkEarlyAccess(String(form.get("earlyCount") ?? ""), String(form.get("earlyPrice") ?? ""));
  if (!c.ok) return { message: c.message, field: c.field };
  try {
    await http(`${ADMIN}/works/${encodeURIComponent(params.pid ?? "")}`, { method: "PATCH", json: c.payload });
  } catch (e) {
    return { message: isHttpError(e) ? e.message : "저장하지 못했습니다." };
  }
  return { saved: true };
}

export default function AdminWork() {
  const { pid = "" } = useParams();
  const data = useLoaderData<typeof clientLoader>();
  const done = useActionData<Done>();
  const busy = useNavigation().state !== "idle";
  const work = data.work;
  const early = work ? earlyOf(work) : null;
  // A refused save is shown above the form (StaffScreen), a refused sign-in in its form.
  const invalid = (f: Done["field"]) => (data.staff && done?.field === f ? true : undefined);
  return (
    <StaffScreen title="작품 설정" staff={data.staff} message={data.message} alertId="work-alert">
      {done?.saved && !data.message && (
        <div role="status" className={s.saved}>
          저장했습니다. 독자 화면에는 잠시 뒤 반영됩니다.
        </div>
      )}
      {work && early ? (
        <>
          <section className={a.panel} aria-labelledby="work-title">
            <h2 id="work-title" className={a.h2}>
              {work.title}
            </h2>
            <dl className={s.meta}>
              <dt className={s.metaTerm}>작품 ID</dt>
              <dd className={s.metaValue}>{work.pid}</dd>
              <dt className={s.metaTerm}>공개</dt>
              <dd className={s.metaValue}>{work.hidden ? "숨김" : "공개 중"}</dd>
              {work.section === "CM" && (
                <>
                  <dt className={s.metaTerm}>넘김 방향</dt>
                  <dd className={s.metaValue} data-testid="order-current">
                    {work.rightToLeft ? "오른쪽에서 왼쪽" : "왼쪽에서 오른쪽"}
                  </dd>
                </>
              )}
              <dt className={s.metaTerm}>미리보기</dt>
              <dd className={s.metaValue} data-testid="early-current">
                {early.earlyCount > 0 ? `${early.earlyCount}회차 · 회차당 ${won(early.earlyPrice)}` : "사용 안 함"}
              </dd>
            </dl>
            {!work.hidden && (
              <p className={a.aside}>
                <Link className={a.link} to={`/${sectionPath(work.section)}/detail/${encodeURIComponent(work.pid)}?tab=V`}>
                  독자 화면에서 보기
                </Link>
              </p>
            )}
          </section>
          {work.section === "CM" && (
            <section className={a.panel} aria-labelledby="order-title">
              <h2 id="order-title" className={a.h2}>
                페이지 넘김 방향
              </h2>
              <Form method="post" className={a.form} key={String(!!work.rightToLeft)}>
                <input type="hidden" name="intent" value="order" />
                <fieldset className={s.choices}>
                  <legend className={a.note}>대부분의 일본 만화는 오른쪽에서 왼쪽으로 읽습니다. 뷰어는 이 순서로 쪽을 넘기고 펼침면을 놓습니다.</legend>
                  <label className={s.choice}>
                    <input type="radio" name="order" value="ltr" defaultChecked={!work.rightToLeft} /> 왼쪽에서 오른쪽
                  </label>
                  <label className={s.choice}>
                    <input type="radio" name="order" value="rtl" defaultChecked={!!work.rightToLeft} /> 오른쪽에서 왼쪽
                  </label>
                </fieldset>
                <button type="submit" className={a.button} disabled={busy}>
                  넘김 방향 저장
                </button>
              </Form>
            </section>
          )}
          <section className={a.panel} aria-labelledby="early-title">
            <h2 id="early-title" className={a.h2}>
              미리보기 (유료 선공개)
            </h2>
            <p className={a.note} id="early-help">
              공개 예정인 회차 중 앞의 몇 회차를 공개 전에 소장으로만 판매합니다. 회차 수를 0으로 하면 미리보기를 끄고 가격은
              0원으로 저장합니다.
            </p>
            {/* Keyed by the stored values: a save reloads them; a refusal keeps what was typed.
                noValidate: the checks of earlyAccess.ts answer, in Korean, next to the field. */}
            <Form method="post" noValidate className={a.form} key={`${early.earlyCount}-${early.earlyPrice}`}>
              <input type="hidden" name="intent" value="early" />
              <label className={a.field}>
                미리보기 회차 수
                <input
                  className={`${a.input} ${s.numberInput}`}
                  name="earlyCount"
                  type="number"
                  inputMode="numeric"
                  min={0}
                  max={MAX_EARLY_COUNT}
                  step={1}
                  required
                  defaultValue={early.earlyCount}
                  aria-describedby={invalid("earlyCount") ? "work-alert early-help" : "early-help"}
                  aria-invalid={invalid("earlyCount")}
                />
              </label>
              <label className={a.field}>
                미리보기 가격(원)
                <input
                  className={`${a.input} ${s.numberInput}`}
                  name="earlyPrice"
                  type="number"
                  inputMode="numeric"
                  min={0}
                  max={MAX_EARLY_PRICE}
                  step={EARLY_PRICE_STEP}
                  defaultValue={early.earlyPrice}
                  aria-describedby={invalid("earlyPrice") ? "work-alert early-price-help" : "early-price-help"}
                  aria-invalid={invalid("earlyPrice")}
                />
              </label>
              <button type="submit" className={a.button} disabled={busy}>
                미리보기 저장
              </button>
              <p className={s.hint} id="early-price-help">
                회차 수는 0~{MAX_EARLY_COUNT}, 가격은 {won(MIN_EARLY_PRICE)}~{won(MAX_EARLY_PRICE)}, {EARLY_PRICE_STEP}원 단위입니다.
              </p>
            </Form>
          </section>
        </>
      ) : (
        !data.message && <p className={a.muted}>작품 {pid}을(를) 불러오지 못했습니다.</p>
      )}
    </StaffScreen>
  );
}

export function ErrorBoundary() {
  return <StaffScreenError title="작품 설정" />;
}
