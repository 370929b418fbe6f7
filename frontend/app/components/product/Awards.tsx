import { useState } from "react";
import { Link } from "react-router";
import { useShell } from "~/shell/ShellProvider";
import { http } from "~/utils/api";
import { authorLine, detailHref, type ProductItem } from "~/utils/product";
import { useUser } from "~/utils/userStore";
import { Thumb } from "./ProductGrid";
import * as s from "./product.css";
import * as ev from "./events.css";

export type Award = {
  eid: number;
  title: string;
  resultType: string;
  startAt: string;
  endAt: string;
  sections: { key: string; title: string; list: { rank: number; votes: number; item: ProductItem }[] }[];
};

/** One award: sections with their nominees ranked by votes; members vote once per section. */
export function AwardView({ award, only }: { award: Award; only?: string }) {
  const shell = useShell();
  const user = useUser();
  const [voted, setVoted] = useState<Record<string, string>>({});
  const [extra, setExtra] = useState<Record<string, number>>({});
  const voting = award.resultType === "VOTING";
  const vote = async (section: string, pid: string) => {
    if (!shell.requireMember()) return;
    try {
      await http(`/pc/api/awards/${award.eid}/vote`, { method: "POST", json: { section, pid } });
      setVoted((v) => ({ ...v, [section]: pid }));
      setExtra((x) => ({ ...x, [pid]: (x[pid] ?? 0) + 1 }));
      shell.toast("투표가 완료되었습니다.");
    } catch (e) {
      shell.toast((e as Error).message || "투표하지 못했습니다.");
    }
  };
  return (
    <div>
      {award.sections
        .filter((sec) => !only || sec.key === only)
        .map((sec) => (
          <section key={sec.key} aria-label={sec.title} className={ev.awardSection}>
            <h2 className={`${s.eventTitle} ${ev.awardTitle}`}>
              <Link to={`/awards/${sec.key}`}>{sec.title}</Link>
            </h2>
            <ul className={s.rows}>
              {sec.list.map((n) => (
                <li key={n.item.pid} className={s.row} data-testid="nominee">
                  <span className={s.rank}>{n.rank}</span>
                  <Link to={detailHref(n.item)} className={s.rowThumb}>
                    <Thumb item={n.item} />
                  </Link>
                  <div className={s.rowBody}>
                    <p className={s.title}>{n.item.title}</p>
                    <p className={s.authors}>{authorLine(n.item.authors)}</p>
                    <p className={s.meta}>{(n.votes + (extra[n.item.pid] ?? 0)).toLocaleString("en-US")}표</p>
                  </div>
                  {voting && (
                    <button
                      type="button"
                      className={voted[sec.key] === n.item.pid ? `${s.chip} ${s.chipAccent} ${ev.voteButton}` : `${s.chip} ${ev.voteButton}`}
                      disabled={!!voted[sec.key]}
                      onClick={() => vote(sec.key, n.item.pid)}
                    >
                      {voted[sec.key] === n.item.pid ? "투표함" : "투표"}
                    </button>
                  )}
                </li>
              ))}
            </ul>
          </section>
        ))}
    </div>
  );
}
