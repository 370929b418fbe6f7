import { Link } from "react-router";
import { PRODUCT_NAME } from "~/utils/meta";
import * as s from "./Footer.css";

/** Footer (web only). */
export function Footer() {
  return (
    <footer className={s.footer}>
      <nav className={s.links} aria-label="하단 메뉴">
        <Link to="/cs">고객센터</Link>
        <Link to="/cs/notice">공지사항</Link>
        <Link to="/cs/faq">자주 묻는 질문</Link>
        <Link to="/cs/privacy">개인정보처리방침</Link>
      </nav>
      <p>© {PRODUCT_NAME}. 웹툰 · 만화 · 소설</p>
    </footer>
  );
}
