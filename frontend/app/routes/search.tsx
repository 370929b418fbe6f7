import { useCallback, useEffect, useMemo, useState } from "react";
import { Link, useLocation, useSearchParams } from "react-router";
import { PopularSearches } from "~/components/search/PopularSearches";
import { RecentSearches } from "~/components/search/RecentSearches";
import { SearchBox } from "~/components/search/SearchBox";
import { SearchResults } from "~/components/search/SearchResults";
import { TitleBar } from "~/components/TitleBar/TitleBar";
import { pageTitle } from "~/utils/meta";
import type { ListAnswer } from "~/utils/storeApi";
import { tracker } from "~/shell/services";
import {
  addRecent,
  clearRecent,
  createLiveSearch,
  popularSearches,
  recentSearches,
  removeRecent,
  searchErrorText,
  searchWorks,
  type LiveState,
  type PopularSearch,
} from "~/utils/search";
import * as s from "~/components/search/search.css";

export const meta = () => [{ title: pageTitle("검색") }];

/**
 * Search (issue 34 item 1): results as the reader types, from the edge's
 * /home/api/v1/search (titles and authors, spacing-insensitive, initial
 * consonants; adult works only to audiences allowed them, as every list).
 * ?q= opens the screen on a query; the field does not rewrite the address
 * per keystroke, so typing is not a navigation (no page views, no history).
 */
export default function SearchScreen() {
  const [params] = useSearchParams();
  const [text, setText] = useState(() => params.get("q") ?? "");
  const [state, setState] = useState<LiveState<ListAnswer>>({ status: "idle", q: "" });
  const [recent, setRecent] = useState<string[]>([]);
  const [popular, setPopular] = useState<PopularSearch[]>([]);
  const location = useLocation();
  const live = useMemo(() => createLiveSearch<ListAnswer>(searchWorks, setState), []);

  useEffect(() => {
    const ac = new AbortController();
    void popularSearches(ac.signal).then((list) => !ac.signal.aborted && setPopular(list));
    return () => ac.abort();
  }, []);

  useEffect(() => {
    setRecent(recentSearches());
    if (text) live.input(text);
    return live.dispose;
    // The first query only; later ones come from typing.
  }, [live]);

  const type = useCallback(
    (q: string) => {
      setText(q);
      live.input(q);
    },
    [live],
  );
  const keep = useCallback(
    (q: string) => {
      setRecent(addRecent(q));
      tracker.search(q, location.pathname + location.search);
    },
    [location],
  );

  const result = state.status === "done" || state.status === "loading" ? state.result : undefined;
  return (
    <>
      <TitleBar title="검색" />
      <SearchBox value={text} onChange={type} onSubmit={keep} />
      <div className={s.section}>
        <Link to="/keyword" className={s.keywordLink}>
          키워드로 찾기
        </Link>
      </div>
      <p className="visually-hidden" role="status" aria-live="polite">
        {state.status === "done" ? `검색 결과 ${state.result.paging.totalCount}건` : ""}
      </p>
      {state.status === "idle" && (
        <>
          <RecentSearches items={recent} onPick={type} onRemove={(q) => setRecent(removeRecent(q))} onClear={() => setRecent(clearRecent())} />
          <PopularSearches items={popular} onPick={type} />
        </>
      )}
      {state.status === "error" && (
        <p className={s.status} role="alert">
          {searchErrorText(state.error)}
        </p>
      )}
      {state.status !== "idle" && state.status !== "error" && result && (
        <SearchResults q={shownQuery(result, state.q)} items={result.list} total={result.paging.totalCount} onOpen={() => keep(state.q)} />
      )}
    </>
  );
}

// While the next query loads, the heading stays on the query the list is for
// (the edge echoes it as keyword).
const shownQuery = (r: ListAnswer & { keyword?: string }, q: string) => r.keyword ?? q;
