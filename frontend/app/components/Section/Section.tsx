import { useId } from "react";
import { Link } from "react-router";
import * as s from "./Section.css";

/** Section heading with a more-link (seed §2). */
export function Section({ title, moreUrl, children }: { title: string; moreUrl?: string; children: React.ReactNode }) {
  const id = useId();
  return (
    <section className={s.section} aria-labelledby={id}>
      <div className={s.head}>
        <h2 id={id} className={s.title}>
          {title}
        </h2>
        {moreUrl && (
          <Link to={moreUrl} className={s.more} aria-label={`${title} 더보기`}>
            더보기 ›
          </Link>
        )}
      </div>
      {children}
    </section>
  );
}
