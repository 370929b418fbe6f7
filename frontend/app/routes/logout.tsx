import * as s from "~/components/product/pages.css";
import { useEffect } from "react";
import { useNavigate } from "react-router";
import { useShell } from "~/shell/ShellProvider";
import { getCookie } from "~/utils/cookies";
import { pageTitle } from "~/utils/meta";
import { COOKIE } from "~/utils/user";
import { clearLocal, logout } from "~/utils/userStore";

export const meta = () => [{ title: pageTitle("로그아웃") }];

/**
 * /logout/: ends the session when this tab still holds it (which tells the
 * other tabs through the 'logout' storage key), or just forgets the user when
 * another tab already logged out; then home.
 */
export default function Logout() {
  const navigate = useNavigate();
  const shell = useShell();
  useEffect(() => {
    let live = true;
    (async () => {
      if (getCookie(COOKIE.webId)) {
        try {
          await logout();
        } catch {
          /* cookies are cleared locally anyway */
        }
      } else {
        clearLocal();
      }
      if (!live) return;
      navigate("/", { replace: true });
      shell.toast("로그아웃 되었습니다.");
    })();
    return () => {
      live = false;
    };
  }, [navigate, shell]);
  return (
    <p role="status" className={s.statusLine}>
      로그아웃 중입니다…
    </p>
  );
}
