import type { ReactNode } from "react";
import { Form } from "react-router";
import * as s from "./analytics.css";

/** A choice of a select: its value in the address and its label. */
export type Choice = { v: string | number; l: string };

/**
 * FilterPanel is a report screen's query form in its panel: GET, so every
 * choice is in the address (a link or a reload asks the same).
 */
export function FilterPanel({ id, asked, busy = false, children }: { id: string; asked: unknown; busy?: boolean; children: ReactNode }) {
  return (
    <section className={s.panel} aria-labelledby={id}>
      <h2 id={id} className={s.h2}>
        조회 조건
      </h2>
      {/* key: a new answer resets the uncontrolled fields to what was asked */}
      <Form method="get" className={s.form} key={JSON.stringify(asked)}>
        {children}
        <button type="submit" className={s.button} disabled={busy}>
          {busy ? "조회 중…" : "조회"}
        </button>
      </Form>
    </section>
  );
}

/** DateRange is the KST days from and to of a report. */
export function DateRange({ from, to }: { from: string; to: string }) {
  return (
    <>
      <InputField label="시작일 (KST)" type="date" name="from" defaultValue={from} required />
      <InputField label="종료일 (KST)" type="date" name="to" defaultValue={to} required />
    </>
  );
}

/** InputField is a labelled input of the form. */
export function InputField({
  label,
  children,
  ...input
}: {
  label: string;
  children?: ReactNode;
} & React.InputHTMLAttributes<HTMLInputElement>) {
  return (
    <label className={s.field}>
      {label}
      <input className={s.input} {...input} />
      {children}
    </label>
  );
}

/** SelectField is a labelled select of the form. */
export function SelectField({
  label,
  name,
  defaultValue,
  choices,
}: {
  label: string;
  name: string;
  defaultValue: string | number;
  choices: readonly Choice[];
}) {
  return (
    <label className={s.field}>
      {label}
      <select className={s.input} name={name} defaultValue={defaultValue}>
        {choices.map((c) => (
          <option key={c.v} value={c.v}>
            {c.l}
          </option>
        ))}
      </select>
    </label>
  );
}
