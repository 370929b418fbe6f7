import { useId } from "react";
import { MAX_QUERY } from "~/utils/search";
import * as s from "./search.css";

/** The search field: a labelled searchbox; Enter keeps the query as a recent search. */
export function SearchBox({ value, onChange, onSubmit }: { value: string; onChange: (q: string) => void; onSubmit: (q: string) => void }) {
  const id = useId();
  return (
    <form
      role="search"
      className={s.form}
      onSubmit={(e) => {
        e.preventDefault();
        onSubmit(value);
      }}
    >
      <label htmlFor={id} className="visually-hidden">
        작품 검색
      </label>
      <input
        id={id}
        type="search"
        className={s.input}
        value={value}
        maxLength={MAX_QUERY}
        placeholder="제목, 작가 또는 초성 (예: ㄱㅁ)"
        autoComplete="off"
        enterKeyHint="search"
        autoFocus
        onChange={(e) => onChange(e.target.value)}
      />
    </form>
  );
}
