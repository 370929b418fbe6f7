import { useNavigate } from "react-router";
import * as s from "./TitleBar.css";

/** Title bar with a back button (seed §2). */
export function TitleBar({ title, back = true }: { title: string; back?: boolean }) {
  const navigate = useNavigate();
  return (
    <div className={s.bar}>
      {back && (
        <button
          type="button"
          className={s.back}
          aria-label="뒤로 가기"
          onClick={() => (window.history.length > 1 ? navigate(-1) : navigate("/"))}
        >
          <svg width="22" height="22" viewBox="0 0 24 24" aria-hidden="true">
            <path d="M15 5l-7 7 7 7" fill="none" stroke="currentColor" strokeWidth="2" strokeLinecap="round" strokeLinejoin="round" />
          </svg>
        </button>
      )}
      <h1 className={s.title}>{title}</h1>
    </div>
  );
}
