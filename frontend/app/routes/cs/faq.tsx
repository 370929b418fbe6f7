import { Link } from "react-router";
import { TitleBar } from "~/components/TitleBar/TitleBar";
import { pageTitle } from "~/utils/meta";
import { FAQ_CATEGORIES } from "~/utils/cs";
import * as s from "~/components/product/cs.css";

export const meta = () => [{ title: pageTitle("자주 묻는 질문") }];

export default function Screen() {
  return (
    <section aria-label="자주 묻는 질문">
      <TitleBar title="자주 묻는 질문" />
      <nav className={s.menu} aria-label="FAQ 분류">
        <Link to="/cs/faq/list" className={s.menuItem}>
          전체
        </Link>
        {FAQ_CATEGORIES.map((c) => (
          <Link key={c.key} to={`/cs/faq/list/${c.key}`} className={s.menuItem}>
            {c.label}
          </Link>
        ))}
      </nav>
    </section>
  );
}
