import { Form, useLoaderData } from "react-router";
import * as s from "~/components/admin/analytics.css";
import {
  STAFF_API,
  StaffScreen,
  StaffScreenError,
  readStaff,
  staffSignInAction,
  type Staff,
} from "~/components/admin/StaffSignIn";
import { http } from "~/utils/api";
import { isHttpError } from "~/utils/http";
import { pageTitle } from "~/utils/meta";

export const meta = () => [
  { title: pageTitle("정산서") },
  { name: "robots", content: "noindex" },
];

type Amounts = { blue: number; android: number; ios: number; mileage: number };

/** One work's month (or the total), integer won (writer/settlement). */
type Line = {
  pid?: string;
  title?: string;
  sales: Amounts;
  purchases: number;
  rentals: number;
  purchaseCount: number;
  rentalCount: number;
  gross: number;
  refunds: Amounts;
  refundTotal: number;
  appStoreFee: number;
  gatewayFee: number;
  base: number;
  net: number;
  storeShare: number;
};

type Statement = {
  providerId: string;
  name: string;
  month: string;
  rateBp: number;
  appStoreFeeBp: number;
  gatewayFeeBp: number;
  works: Line[];
  total: Line;
};

type Data = {
  staff: Staff | null;
  provider: string;
  month: string;
  statement: Statement | null;
  message?: string;
};

/** The current month in Korean time, YYYY-MM. */
function thisMonth(): string {
  const kst = new Date(Date.now() + 9 * 60 * 60 * 1000);
  return kst.toISOString().slice(0, 7);
}

/**
 * /admin/settlement?provider=&month=: a provider's monthly settlement
 * statement. A provider account sees its own (its provider is the default
 * and the writer refuses any other); operators and analysts pick any.
 */
export async function clientLoader({
  request,
}: {
  request: Request;
}): Promise<Data> {
  const url = new URL(request.url);
  const month = (url.searchParams.get("month") ?? "").trim() || thisMonth();
  const staff = await readStaff(request.signal);
  const provider =
    (url.searchParams.get("provider") ?? "").trim() || staff?.providerId || "";
  const base: Data = { staff, provider, month, statement: null };
  if (!staff || !provider) return base;
  try {
    const a = await http<{ statement: Statement }>(
      `${STAFF_API}/providers/${encodeURIComponent(provider)}/settlement`,
      { query: { month }, signal: request.signal },
    );
    return { ...base, statement: a.statement };
  } catch (e) {
    if (isHttpError(e) && e.status >= 400 && e.status < 500)
      return { ...base, message: e.message };
    throw e;
  }
}

export const clientAction = staffSignInAction;

const won = (n: number) => `${n.toLocaleString("ko-KR")}원`;
const pct = (bp: number) => `${(bp / 100).toLocaleString("ko-KR")}%`;

const COLUMNS: [string, (l: Line) => string][] = [
  ["구매", (l) => `${won(l.purchases)} (${l.purchaseCount}건)`],
  ["대여", (l) => `${won(l.rentals)} (${l.rentalCount}건)`],
  ["총매출", (l) => won(l.gross)],
  ["마일리지(정산 제외)", (l) => won(l.sales.mileage)],
  ["환불", (l) => won(l.refundTotal)],
  ["앱마켓 수수료", (l) => won(l.appStoreFee)],
  ["결제 수수료", (l) => won(l.gatewayFee)],
  ["정산 대상", (l) => won(l.base)],
  ["제공사 정산액", (l) => won(l.net)],
];

export default function AdminSettlement() {
  const data = useLoaderData<typeof clientLoader>();
  const st = data.statement;
  return (
    <StaffScreen title="정산서" staff={data.staff} message={data.message}>
      <>
        <section className={s.panel} aria-labelledby="settlement-filter-title">
          <h2 id="settlement-filter-title" className={s.h2}>
            정산 기간
          </h2>
          <Form method="get" className={s.form}>
            <label className={s.field}>
              제공사 번호
              <input
                className={s.input}
                name="provider"
                defaultValue={data.provider}
                readOnly={data.staff?.role === "provider"}
              />
            </label>
            <label className={s.field}>
              월 (한국 시간)
              <input
                className={s.input}
                type="month"
                name="month"
                defaultValue={data.month}
              />
            </label>
            <button type="submit" className={s.button}>
              보기
            </button>
          </Form>
        </section>
        {st && (
          <table className={s.table}>
            <caption className={s.caption}>
              {st.name} {st.month} 정산 (정산율 {pct(st.rateBp)}, 앱마켓 수수료{" "}
              {pct(st.appStoreFeeBp)}, 결제 수수료 {pct(st.gatewayFeeBp)};
              수수료와 정산액은 작품별로 원 단위 미만을 버립니다)
            </caption>
            <thead>
              <tr>
                <th className={s.th} scope="col">
                  작품
                </th>
                {COLUMNS.map(([name]) => (
                  <th key={name} className={s.th} scope="col">
                    {name}
                  </th>
                ))}
              </tr>
            </thead>
            <tbody>
              {st.works.map((l) => (
                <tr key={l.pid} data-testid="settlement-row">
                  <th className={s.td} scope="row">
                    {l.title} ({l.pid})
                  </th>
                  {COLUMNS.map(([name, cell]) => (
                    <td key={name} className={s.td}>
                      {cell(l)}
                    </td>
                  ))}
                </tr>
              ))}
              <tr data-testid="settlement-total">
                <th className={s.th} scope="row">
                  합계
                </th>
                {COLUMNS.map(([name, cell]) => (
                  <td key={name} className={s.th}>
                    {cell(st.total)}
                  </td>
                ))}
              </tr>
            </tbody>
          </table>
        )}
      </>
    </StaffScreen>
  );
}

export function ErrorBoundary() {
  return <StaffScreenError title="정산서" />;
}
