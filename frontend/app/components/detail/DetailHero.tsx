import type { Detail } from "~/utils/storeApi";
import { viewCount } from "~/utils/format";
import { authorLine } from "~/utils/product";
import * as s from "./detail.css";

/** The work's cover, title, authors, counts and chips (benefits included). */
export function DetailHero({ detail, benefits }: { detail: Detail; benefits: string[] }) {
  const p = detail.prodInfo;
  return (
    <header className={s.hero}>
      <img className={s.heroBg} src={p.thumbUrl} alt="" aria-hidden="true" width={360} height={200} />
      <div className={s.heroInner}>
        <div className={s.cover}>
          <img src={p.thumbUrl} alt={`${p.title} 표지`} width={108} height={144} />
        </div>
        <div className={s.heroText}>
          <h1 className={s.title}>{p.title}</h1>
          <p className={s.sub}>{authorLine(p.authors)}</p>
          <p className={s.stats}>
            <span data-testid="view-count">조회 {viewCount(p.viewCnt)}</span>
            {detail.metric && <span>♥ {detail.metric.zzimCount.toLocaleString("en-US")}</span>}
            {p.updateCycle && <span>{p.updateCycle}</span>}
            {p.flagEnd === "Y" && p.updateCycle !== "완결" && <span>완결</span>}
          </p>
          <div className={s.chips}>
            {p.age >= 19 && <span className={s.chip}>19</span>}
            {p.isOriginal && <span className={s.chip}>오리지널</span>}
            {p.isMonopoly && <span className={s.chip}>독점</span>}
            {p.category2 && <span className={s.chip}>{p.category2}</span>}
            {benefits.map((b) => (
              <span key={b} className={`${s.chip} ${s.benefit}`} data-testid="benefit">
                {b}
              </span>
            ))}
          </div>
        </div>
      </div>
    </header>
  );
}
