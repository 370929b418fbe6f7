import { Link } from "react-router";
import { TitleBar } from "~/components/TitleBar/TitleBar";
import { openDesktopPopup } from "~/shell/popup";
import { currentDevice } from "~/utils/device";
import { pageTitle } from "~/utils/meta";
import * as s from "~/components/product/cs.css";

export const meta = () => [{ title: pageTitle("고객센터") }];

const MENU = [
  { to: "/cs/faq", label: "자주 묻는 질문" },
  { to: "/cs/qna", label: "1:1 문의하기" },
  { to: "/cs/qna/list", label: "내 문의 내역" },
  { to: "/cs/notice", label: "공지사항" },
  { to: "/cs/notice/closingprod", label: "판매 종료 작품" },
  { to: "/cs/privacy", label: "개인정보 처리방침" },
];

/** The chat: a popup window beside the store on a desktop, the page itself elsewhere (or when the popup is blocked). */
const CHAT = "/conversation";

export default function Screen() {
  const openChat = (e: React.MouseEvent) => {
    if (openDesktopPopup(CHAT, "sf_chat", currentDevice())) e.preventDefault();
  };
  return (
    <section aria-label="고객센터">
      <TitleBar title="고객센터" />
      <nav className={s.menu} aria-label="고객센터 메뉴">
        {MENU.map((m) => (
          <Link key={m.to} to={m.to} className={s.menuItem}>
            {m.label}
          </Link>
        ))}
        <Link to={CHAT} className={s.menuItem} onClick={openChat}>
          채팅 상담
        </Link>
      </nav>
    </section>
  );
}
