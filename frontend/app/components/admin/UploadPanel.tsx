import { useEffect, useRef, useState } from "react";
import { useRevalidator } from "react-router";
import { http } from "~/utils/api";
import { isHttpError } from "~/utils/http";
import * as s from "./analytics.css";
import * as m from "./media.css";
import { MEDIA_API, mediaAPI } from "./mediaAPI";
import {
  ACCEPT,
  isRefusal,
  jobLabel,
  sortFiles,
  uploadFile,
  type Job,
} from "./mediaUpload";

type FileState = { name: string; sent: number; total: number; done: boolean };

/**
 * UploadPanel sends the chosen files one after another (each in resumable
 * parts, with its progress), then asks for one processing job and watches it.
 * Not a clientAction: a form submission reports no upload progress.
 */
export function UploadPanel({ pid, no }: { pid: string; no: number }) {
  const [files, setFiles] = useState<FileState[]>([]);
  const [job, setJob] = useState<Job | null>(null);
  const [error, setError] = useState("");
  const [running, setRunning] = useState(false);
  const input = useRef<HTMLInputElement>(null);
  const revalidator = useRevalidator();

  // Watch the job until it is done or failed; then the list and the preview reload.
  useEffect(() => {
    if (!job || job.state === "done" || job.state === "failed") return;
    const t = setTimeout(async () => {
      try {
        const a = await http<{ job: Job }>(`${MEDIA_API}/jobs/${job.id}`);
        setJob(a.job);
        if (a.job.state === "done" || a.job.state === "failed")
          revalidator.revalidate();
      } catch (e) {
        setError(
          isHttpError(e) ? e.message : "처리 상태를 불러오지 못했습니다.",
        );
      }
    }, 700);
    return () => clearTimeout(t);
  }, [job, revalidator]);

  const start = async (e: React.FormEvent) => {
    e.preventDefault();
    const chosen = sortFiles(Array.from(input.current?.files ?? []));
    if (chosen.length === 0) return;
    setError("");
    setJob(null);
    setRunning(true);
    setFiles(
      chosen.map((f) => ({
        name: f.name,
        sent: 0,
        total: f.size,
        done: false,
      })),
    );
    const api = mediaAPI();
    try {
      const ids: string[] = [];
      for (const [i, f] of chosen.entries()) {
        const u = await uploadFile(f, api, (sent, tot) =>
          setFiles((fs) =>
            fs.map((x, j) => (j === i ? { ...x, sent, total: tot } : x)),
          ),
        );
        setFiles((fs) =>
          fs.map((x, j) => (j === i ? { ...x, sent: x.total, done: true } : x)),
        );
        ids.push(u.id);
      }
      const a = await http<{ job: Job }>(`${MEDIA_API}/jobs`, {
        method: "POST",
        json: { target: "volume", pid, no, uploads: ids },
        expect: [202],
      });
      setJob(a.job);
    } catch (err) {
      setError(
        isRefusal(err) || isHttpError(err)
          ? (err as Error).message
          : "업로드하지 못했습니다. 다시 시도해 주세요.",
      );
    } finally {
      setRunning(false);
    }
  };

  return (
    <section className={s.panel} aria-labelledby="up-title">
      <h2 id="up-title" className={s.h2}>
        {pid} {no}화 파일 올리기
      </h2>
      <form className={s.form} onSubmit={start}>
        <label className={s.field}>
          파일 (이미지 여러 장, ZIP·CBZ 하나 또는 EPUB 하나)
          <input
            ref={input}
            className={s.input}
            type="file"
            name="files"
            multiple
            accept={ACCEPT}
            required
            disabled={running}
          />
        </label>
        <button type="submit" className={s.button} disabled={running}>
          {running ? "올리는 중…" : "올리기"}
        </button>
      </form>
      {error && (
        <div role="alert" className={s.alert} style={{ marginTop: 8 }}>
          {error}
        </div>
      )}
      {files.length > 0 && (
        <ul className={m.files} aria-label="올리는 파일">
          {files.map((f) => (
            <li key={f.name} className={m.file}>
              <span className={m.fileName}>{f.name}</span>
              <progress
                className={m.progress}
                max={f.total || 1}
                value={f.sent}
                aria-label={`${f.name} 업로드`}
              />
              <span className={s.muted}>
                {f.done
                  ? "완료"
                  : `${Math.floor((100 * f.sent) / (f.total || 1))}%`}
              </span>
            </li>
          ))}
        </ul>
      )}
      {job && (
        <p
          role="status"
          className={m.jobState}
          data-testid="job-state"
          data-state={job.state}
        >
          작업 #{job.id}: {jobLabel(job)}
        </p>
      )}
    </section>
  );
}
