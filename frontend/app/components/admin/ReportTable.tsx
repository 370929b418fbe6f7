import type { ReactNode } from "react";
import * as s from "./analytics.css";

/** One column of a report table: its heading and what a row shows in it. */
export type Column<R> = {
  label: ReactNode;
  cell: (row: R) => ReactNode;
  /** Figures align right. */
  num?: boolean;
  /** The column that names the row (a row header for screen readers). */
  rowHeader?: boolean;
};

/** A report's figures as a captioned table: one markup for every report screen. */
export function ReportTable<R>({
  testId,
  caption,
  columns,
  rows,
  rowKey,
  marked,
}: {
  testId: string;
  caption: ReactNode;
  columns: Column<R>[];
  rows: readonly R[];
  rowKey: (row: R) => string;
  /** Rows to emphasise (the release instant, a total). */
  marked?: (row: R) => boolean;
}) {
  return (
    <table className={s.table} data-testid={testId}>
      <caption className={s.caption}>{caption}</caption>
      <thead>
        <tr>
          {columns.map((c, i) => (
            <th key={i} className={c.num ? `${s.th} ${s.num}` : s.th} scope="col">
              {c.label}
            </th>
          ))}
        </tr>
      </thead>
      <tbody>
        {rows.map((r) => (
          <tr key={rowKey(r)} className={marked?.(r) ? s.rowMark : undefined}>
            {columns.map((c, i) => {
              const cls = c.num ? `${s.td} ${s.num}` : s.td;
              return c.rowHeader ? (
                <th key={i} className={cls} scope="row">
                  {c.cell(r)}
                </th>
              ) : (
                <td key={i} className={cls}>
                  {c.cell(r)}
                </td>
              );
            })}
          </tr>
        ))}
      </tbody>
    </table>
  );
}
