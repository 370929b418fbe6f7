import * as s from "./analytics.css";
import { jobLabel, type Job } from "./mediaUpload";

/** The volume's processing jobs, newest first as the writer lists them. */
export function Jobs({ jobs }: { jobs: Job[] }) {
  if (jobs.length === 0) return null;
  return (
    <section className={s.panel} aria-labelledby="jobs-title">
      <h2 id="jobs-title" className={s.h2}>
        처리 기록
      </h2>
      <table className={s.table}>
        <thead>
          <tr>
            <th className={s.th}>작업</th>
            <th className={s.th}>상태</th>
            <th className={s.th}>시도</th>
          </tr>
        </thead>
        <tbody>
          {jobs.map((j) => (
            <tr key={j.id}>
              <td className={s.td}>#{j.id}</td>
              <td className={s.td}>{jobLabel(j)}</td>
              <td className={s.td}>{j.attempts}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </section>
  );
}
