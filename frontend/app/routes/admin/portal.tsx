import { Form, Link, useActionData, useLoaderData, useNavigation } from "react-router";
import * as s from "~/components/admin/analytics.css";
import { type Episode, kstInput, type Limits, limitsText, readEpisode } from "~/components/admin/episodes";
import { STAFF_API, StaffScreen, StaffScreenError, readStaff, staffSignInAction, type Staff } from "~/components/admin/StaffSignIn";
import * as w from "~/components/admin/works.css";
import { http } from "~/utils/api";
import { isHttpError } from "~/utils/http";
import { pageTitle } from "~/utils/meta";

export const meta = () => [{ title: pageTitle("파트너 포털") }, { name: "robots", content: "noindex" }];

type Work = { pid: string; title: string };
type Day = {
  day: string;
  pid: string;
  purchases: number;
  rentals: number;
  mileage: number;
  refunds: number;
  purchaseCount: number;
  rentalCount: number;
  readers: number;
};
type Contract = { id: string; name: string; limits: Limits };
type Product = { pid: string; title: string; volumes: Episode[] };

type Data = {
  staff: Staff | null;
  provider: string;
  month: string;
  contract: Contract | null;
  works: Work[];
  days: Day[];
  work: Product | null;
  message?: string;
};
type Done = { message?: string; saved?: string };

/** The current month in Korean time, YYYY-MM. */
function thisMonth(): string {
  return new Date(Date.now() + 9 * 60 * 60 * 1000).toISOString().slice(0, 7);
}

const refusal = (e: unknown) => {
  if (isHttpError(e) && e.status >= 400 && e.status < 500) return e.message;
  throw e;
};

/**
 * /admin/portal?pid=&month=: the partner portal (issue 31 item 3), under the
 * store's origin beside the other staff screens. A provider signs in with its
 * staff account (password and TOTP) and sees its contract's limits, its
 * works, and per work and KST day its sales, rentals, refunds and readers;
 * for a work of its own (?pid=) it schedules episodes, sets their prices and
 * free setting, adds episodes and goes to their upload (/admin/media). The
 * writer decides what is its own: another provider's work or numbers are
 * refused (403) and shown as that refusal. Content managers use the episode
 * part for any work (?pid=); operators and analysts read any provider's
 * numbers (?provider=).
 */
export async function clientLoader({ request }: { request: Request }): Promise<Data> {
  const url = new URL(request.url);
  const month = (url.searchParams.get("month") ?? "").trim() || thisMonth();
  const pid = (url.searchParams.get("pid") ?? "").trim();
  const staff = await readStaff(request.signal);
  const provider = staff?.role === "provider" ? (staff.providerId ?? "") : (url.searchParams.get("provider") ?? "").trim();
  const data: Data = { staff, provider, month, contract: null, works: [], days: [], work: null };
  if (!staff) return data;
  const signal = request.signal;
  const messages: string[] = [];
  const base = `${STAFF_API}/providers/${encodeURIComponent(provider)}`;
  await Promise.all([
    provider && staff.permissions.includes("settlement")
      ? Promise.all([
          http<{ provider: Contract }>(base, { signal }),
          http<{ works: Work[] }>(`${base}/works`, { signal }),
          http<{ days: Day[] }>(`${base}/daily`, { query: { month }, signal }),
        ]).then(
          ([c, ws, d]) => {
            data.contract = c.provider;
            data.works = ws.works;
            data.days = d.days;
          },
          (e) => void messages.push(refusal(e)),
        )
      : null,
    pid
      ? http<{ product: Product }>(`${STAFF_API}/works/${encodeURIComponent(pid)}`, { signal }).then(
          (r) => void (data.work = r.product),
          (e) => void messages.push(refusal(e)),
        )
      : null,
  ]);
  if (messages.length) data.message = messages.join(" ");
  return data;
}

export async function clientAction({ request }: { request: Request }): Promise<Done | Response> {
  const form = await request.clone().formData();
  const intent = form.get("intent");
  if (intent !== "episode" && intent !== "new-episode") return staffSignInAction({ request });
  const pid = String(form.get("pid") ?? "");
  const read = readEpisode(form);
  if (!read.ok) return { message: read.message };
  const path = `${STAFF_API}/works/${encodeURIComponent(pid)}/volumes`;
  try {
    if (intent === "new-episode") {
      const r = await http<{ no: number }>(path, { method: "POST", json: read.fields, expect: [201] });
      return { saved: `${r.no}화를 추가했습니다. 파일을 올려 주세요.` };
    }
    // A volume is replaced whole: the stored one's other fields (its pages,
    // content version, preview) go back as they are.
    const no = Number(form.get("no"));
    const cur = await http<{ product: Product }>(`${STAFF_API}/works/${encodeURIComponent(pid)}`);
    const old = cur.product.volumes.find((v) => v.no === no);
    if (!old) return { message: `${no}화를 찾을 수 없습니다.` };
    await http(`${path}/${no}`, { method: "PUT", json: { ...old, ...read.fields } });
    return { saved: `${no}화를 저장했습니다. 독자 화면에는 잠시 뒤 반영됩니다.` };
  } catch (e) {
    return { message: isHttpError(e) ? e.message : "저장하지 못했습니다." };
  }
}

const won = (n: number) => `${n.toLocaleString("ko-KR")}원`;

function EpisodeFields({ v, prefix }: { v?: Episode; prefix: string }) {
  return (
    <>
      <label className={s.field}>
        {prefix} 제목
        <input className={s.input} name="title" defaultValue={v?.title ?? ""} required maxLength={100} />
      </label>
      <label className={s.field}>
        {prefix} 공개 시각 (한국 시간)
        <input className={s.input} type="datetime-local" name="releaseAt" defaultValue={v ? kstInput(v.releaseAt) : ""} required />
      </label>
      <label className={s.field}>
        {prefix} 구매 가격(원)
        <input className={`${s.input} ${w.numberInput}`} type="number" inputMode="numeric" min={0} name="buyPrice" defaultValue={v?.buyPrice ?? 0} />
      </label>
      <label className={s.field}>
        {prefix} 대여 가격(원, 0은 대여 안 함)
        <input className={`${s.input} ${w.numberInput}`} type="number" inputMode="numeric" min={0} name="rentPrice" defaultValue={v?.rentPrice ?? 0} />
      </label>
      <label className={s.field}>
        <span>
          <input type="checkbox" name="isFree" defaultChecked={v?.isFree ?? false} /> {prefix} 무료
        </span>
      </label>
    </>
  );
}

export default function AdminPortal() {
  const data = useLoaderData<typeof clientLoader>();
  const done = useActionData<Done>();
  const busy = useNavigation().state !== "idle";
  const limits = limitsText(data.contract?.limits);
  const titles = new Map(data.works.map((x) => [x.pid, x.title]));
  const work = data.work;
  const now = Date.now();
  return (
    <StaffScreen title="파트너 포털" staff={data.staff} message={data.message}>
      <>
        {done?.saved && (
          <div role="status" className={w.saved}>
            {done.saved}
          </div>
        )}
        {data.contract && (
          <section className={s.panel} aria-labelledby="contract-title">
            <h2 id="contract-title" className={s.h2}>
              {data.contract.name} 계약
            </h2>
            <p className={s.muted} data-testid="portal-limits">
              {limits ? `계약 한도: ${limits}` : "계약상 가격과 무료 회차 한도가 없습니다."}
            </p>
            <p className={s.aside}>
              <Link className={s.link} to={`/admin/settlement?month=${data.month}`}>
                월 정산서 보기
              </Link>
            </p>
          </section>
        )}
        {data.contract && (
          <section className={s.panel} aria-labelledby="works-title">
            <h2 id="works-title" className={s.h2}>
              내 작품
            </h2>
            {data.works.length === 0 ? (
              <p className={s.muted}>아직 맡은 작품이 없습니다.</p>
            ) : (
              <ul>
                {data.works.map((x) => (
                  <li key={x.pid}>
                    <Link className={s.link} to={`?pid=${encodeURIComponent(x.pid)}&month=${data.month}`}>
                      {x.title} ({x.pid})
                    </Link>
                  </li>
                ))}
              </ul>
            )}
          </section>
        )}
        {work && (
          <section className={s.panel} aria-labelledby="episodes-title">
            <h2 id="episodes-title" className={s.h2}>
              {work.title} 회차
            </h2>
            {work.volumes.map((v) => (
              <Form method="post" className={s.form} key={`${v.no}-${v.releaseAt}-${v.buyPrice}-${v.rentPrice}-${v.isFree}-${v.title}`} aria-label={`${v.no}화`}>
                <input type="hidden" name="intent" value="episode" />
                <input type="hidden" name="pid" value={work.pid} />
                <input type="hidden" name="no" value={v.no} />
                <EpisodeFields v={v} prefix={`${v.no}화`} />
                <span className={s.muted}>
                  {Date.parse(v.releaseAt) > now ? "공개 예정" : "공개됨"} · {v.contentVer ? `파일 버전 ${v.contentVer.slice(0, 8)}` : "파일 없음"}
                </span>
                <button type="submit" className={s.button} disabled={busy}>
                  {v.no}화 저장
                </button>
                <Link className={s.link} to={`/admin/media?pid=${encodeURIComponent(work.pid)}&no=${v.no}`}>
                  {v.no}화 파일 올리기
                </Link>
              </Form>
            ))}
            <h3 className={s.h2}>새 회차</h3>
            <Form method="post" className={s.form} aria-label="새 회차">
              <input type="hidden" name="intent" value="new-episode" />
              <input type="hidden" name="pid" value={work.pid} />
              <EpisodeFields prefix="새 회차" />
              <button type="submit" className={s.button} disabled={busy}>
                회차 추가
              </button>
            </Form>
          </section>
        )}
        {data.contract && (
          <section className={s.panel} aria-labelledby="daily-title">
            <h2 id="daily-title" className={s.h2}>
              일별 판매
            </h2>
            <Form method="get" className={s.form}>
              {work && <input type="hidden" name="pid" value={work.pid} />}
              <label className={s.field}>
                월 (한국 시간)
                <input className={s.input} type="month" name="month" defaultValue={data.month} />
              </label>
              <button type="submit" className={s.button}>
                보기
              </button>
            </Form>
            {data.days.length === 0 ? (
              <p className={s.muted}>{data.month}에는 판매가 없습니다.</p>
            ) : (
              <table className={s.table}>
                <caption className={s.caption}>
                  {data.month} 작품별 일별 판매 (마일리지는 정산 제외, 독자는 그날 회차를 연 회원 수)
                </caption>
                <thead>
                  <tr>
                    {["날짜", "작품", "구매", "대여", "마일리지", "환불", "독자"].map((h) => (
                      <th key={h} className={s.th} scope="col">
                        {h}
                      </th>
                    ))}
                  </tr>
                </thead>
                <tbody>
                  {data.days.map((d) => (
                    <tr key={`${d.day}-${d.pid}`} data-testid="portal-day">
                      <th className={s.td} scope="row">
                        {d.day}
                      </th>
                      <td className={s.td}>
                        {titles.get(d.pid) ?? d.pid} ({d.pid})
                      </td>
                      <td className={s.td}>
                        {won(d.purchases)} ({d.purchaseCount}건)
                      </td>
                      <td className={s.td}>
                        {won(d.rentals)} ({d.rentalCount}건)
                      </td>
                      <td className={s.td}>{won(d.mileage)}</td>
                      <td className={s.td}>{won(d.refunds)}</td>
                      <td className={s.td}>{d.readers}명</td>
                    </tr>
                  ))}
                </tbody>
              </table>
            )}
          </section>
        )}
        {!data.contract && !work && !data.message && (
          <p className={s.muted}>
            작품 ID로 회차를 열어 주세요 (<code>?pid=</code>). 제공사 계정은 로그인하면 자기 작품과 판매가 보입니다.
          </p>
        )}
      </>
    </StaffScreen>
  );
}

export function ErrorBoundary() {
  return <StaffScreenError title="파트너 포털" />;
}
