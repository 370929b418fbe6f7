import { useState } from "react";
import { Link, useNavigate } from "react-router";
import { TitleBar } from "~/components/TitleBar/TitleBar";
import { useShell } from "~/shell/ShellProvider";
import { http } from "~/utils/api";
import { pageTitle } from "~/utils/meta";
import { API } from "~/utils/storeApi";
import { FAQ_CATEGORIES } from "~/utils/cs";
import { useUser } from "~/utils/userStore";
import * as s from "~/components/product/cs.css";
import * as c from "~/components/product/csForm.css";

export const meta = () => [{ title: pageTitle("1:1 문의하기") }];

export default function Screen() {
  const shell = useShell();
  const user = useUser();
  const navigate = useNavigate();
  const [busy, setBusy] = useState(false);
  const submit = async (e: React.FormEvent<HTMLFormElement>) => {
    e.preventDefault();
    if (!shell.requireMember()) return;
    const f = new FormData(e.currentTarget);
    setBusy(true);
    try {
      await http(`${API}/cs/qna`, { method: "POST", json: { category: f.get("category"), title: f.get("title"), body: f.get("body") }, expect: [201] });
      shell.toast("문의가 접수되었습니다.");
      navigate("/cs/qna/list");
    } catch (err) {
      shell.toast((err as Error).message || "문의를 보내지 못했습니다.");
    } finally {
      setBusy(false);
    }
  };
  return (
    <section aria-label="1:1 문의하기">
      <TitleBar title="1:1 문의하기" />
      <form className={s.form} onSubmit={submit}>
        <select className={s.input} name="category" aria-label="문의 분류" defaultValue="comic">
          {FAQ_CATEGORIES.map((c) => (
            <option key={c.key} value={c.key}>
              {c.label}
            </option>
          ))}
        </select>
        <input className={s.input} name="title" required maxLength={100} placeholder="제목" aria-label="제목" />
        <textarea className={s.input} name="body" required maxLength={2000} rows={8} placeholder="문의 내용을 적어 주세요" aria-label="문의 내용" />
        <button className={s.button} type="submit" disabled={busy}>
          문의 보내기
        </button>
        <Link to="/cs/qna/list" className={c.qnaListLink}>
          내 문의 내역 보기
        </Link>
      </form>
    </section>
  );
}
