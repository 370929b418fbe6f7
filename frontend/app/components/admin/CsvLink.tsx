import * as s from "./analytics.css";
import { csvHref, type ReportParams } from "./exportFiles";

/** A link that downloads one report as CSV with the shown parameters. */
export function CsvLink({ report, params, label }: { report: string; params: ReportParams; label: string }) {
  return (
    <a className={s.exportLink} href={csvHref(report, params)} download aria-label={`${label} CSV 내려받기`}>
      CSV
    </a>
  );
}
