import { Link } from "react-router";
import { TitleBar } from "../TitleBar/TitleBar";
import * as s from "./ScreenPlaceholder.css";

/** A screen that the screens issue has not filled in yet: its title in a real layout. */
export function ScreenPlaceholder({ title }: { title: string }) {
  return (
    <section aria-label={title}>
      <TitleBar title={title} />
      <p className={s.body}>
        {title} 화면을 준비하고 있습니다. <Link to="/">홈으로</Link>
      </p>
    </section>
  );
}
