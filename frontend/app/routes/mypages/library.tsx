import { Link, useLoaderData } from "react-router";
import { LibraryTabs } from "~/components/library/LibraryTabs";
import { OfflineList } from "~/components/library/OfflineList";
import { ShelfList } from "~/components/library/ShelfList";
import { Pager } from "~/components/product/Pager";
import { TitleBar } from "~/components/TitleBar/TitleBar";
import * as p from "~/components/product/product.css";
import { loadShelf, SHELVES, shelfOf, SORTS, sortOf, type LibrarySort, type Shelf } from "~/utils/library";
import { loadOfflineShelf } from "~/offline/savedShelf";
import { pageTitle } from "~/utils/meta";
import { guard, pageOf } from "~/utils/routeData";

export const meta = () => [{ title: pageTitle("내 서재") }];

const EMPTY_TEXT: Record<Shelf, string> = {
  reading: "읽고 있는 작품이 없습니다.",
  saved: "찜한 작품이 없습니다.",
  owned: "소장한 작품이 없습니다.",
  rented: "대여 중인 작품이 없습니다.",
  offline: "이 기기에 오프라인 저장한 회차가 없습니다. 구매하거나 대여한 회차를 보기 설정에서 저장할 수 있어요.",
};

// On the offline shelf "by update" is when the episodes were saved: what
// changes on the device.
const sortLabel = (shelf: Shelf, sort: LibrarySort, label: string) => (shelf === "offline" && sort === "update" ? "최근 저장 순" : label);

export async function clientLoader({ request, params }: { request: Request; params: { shelf?: string; page?: string } }) {
  const shelf = shelfOf(params.shelf);
  if (!shelf) throw new Response("", { status: 404, statusText: "서재에 없는 목록입니다." });
  const sort = sortOf(new URL(request.url).searchParams.get("sort"));
  if (shelf === "offline") {
    // From the device alone: this shelf opens without a network.
    return { ...(await loadOfflineShelf(sort, pageOf(params.page))), offline: true as const, shelf, sort, now: Date.now() };
  }
  const data = await guard(loadShelf(shelf, sort, pageOf(params.page), request.signal));
  return { ...data, offline: false as const, shelf, sort, now: Date.now() };
}

/** The member's library: one shelf at a time, paged, by last read or by update. */
export default function Library() {
  const d = useLoaderData<typeof clientLoader>();
  const label = SHELVES.find((x) => x.shelf === d.shelf)?.label ?? "읽고 있는 작품";
  return (
    <section aria-label="내 서재" className={p.page}>
      <TitleBar title="내 서재" />
      <LibraryTabs />
      {!d.login ? (
        <p className={p.empty}>
          로그인이 필요한 서비스입니다.
          <br />
          <Link to={`/nuxgin?url=${encodeURIComponent(`/mypages/library/${d.shelf}`)}`}>로그인하기</Link>
        </p>
      ) : (
        <>
          <div className={p.controls}>
            <span className={p.count}>총 {d.totalCount}작품</span>
            <nav aria-label="정렬" className={p.controls}>
              {SORTS.map((o) => (
                <Link
                  key={o.sort}
                  to={`/mypages/library/${d.shelf}?sort=${o.sort}`}
                  className={o.sort === d.sort ? `${p.tab} ${p.tabActive}` : p.tab}
                  aria-current={o.sort === d.sort ? "true" : undefined}
                >
                  {sortLabel(d.shelf, o.sort, o.label)}
                </Link>
              ))}
            </nav>
          </div>
          {d.offline ? (
            <OfflineList items={d.list} empty={EMPTY_TEXT.offline} />
          ) : d.list.length === 0 ? (
            <p className={p.empty}>{EMPTY_TEXT[d.shelf]}</p>
          ) : (
            <ShelfList items={d.list} label={label} now={d.now} rented={d.shelf === "rented"} />
          )}
          <Pager base={`/mypages/library/${d.shelf}`} cur={d.curPage} count={d.pageCount} search={`?sort=${d.sort}`} />
        </>
      )}
    </section>
  );
}
