import { useEffect, useRef, useState } from "react";
import { Form, Link, useLoaderData, useNavigation, useRevalidator } from "react-router";
import * as s from "~/components/admin/analytics.css";
import * as m from "~/components/admin/media.css";
import { ACCEPT, isRefusal, jobLabel, RefusedError, sortFiles, uploadFile, type Job, type MediaAPI, type Upload } from "~/components/admin/mediaUpload";
import { AdminTokenForm, adminTokenAction, readAdminToken } from "~/components/admin/AdminToken";
import { fallbackWidth, getManifest, pageURL, srcSet, total, type Manifest } from "~/components/viewer/media";
import { http } from "~/utils/api";
import { isHttpError } from "~/utils/http";
import { pageTitle } from "~/utils/meta";
import { getVolumes } from "~/utils/storeApi";

export const meta = () => [{ title: pageTitle("콘텐츠 업로드") }, { name: "robots", content: "noindex" }];

const MEDIA_API = "/admin/api/v1/media";

type Data = { token: boolean; pid: string; no: number; jobs: Job[]; manifest: Manifest | null; message?: string };

/**
 * /admin/media?pid=&no=: the content team uploads a volume's files (pictures
 * in order, one ZIP/CBZ or one EPUB) with progress, watches the processing
 * job, and previews the volume as a reader gets it. The admin token is kept
 * in this tab's session storage, as on /admin/analytics.
 */
export async function clientLoader({ request }: { request: Request }): Promise<Data> {
  const url = new URL(request.url);
  const pid = (url.searchParams.get("pid") ?? "").trim();
  const no = Number(url.searchParams.get("no") ?? "") || 0;
  const token = readAdminToken();
  const base: Data = { token: !!token, pid, no, jobs: [], manifest: null };
  if (!token || !pid || no < 1) return base;
  try {
    const [jobs, vols] = await Promise.all([
      http<{ jobs: Job[] }>(`${MEDIA_API}/jobs`, { query: { pid, no }, headers: { Authorization: `Bearer ${token}` }, signal: request.signal }),
      getVolumes(pid, "old", request.signal).catch(() => null),
    ]);
    // The list names the volumes with processed content; only those have a manifest.
    const hasMedia = !!vols?.volList.find((v) => v.no === no)?.mediaBase;
    return { ...base, jobs: jobs.jobs, manifest: hasMedia ? await getManifest(pid, no, request.signal) : null };
  } catch (e) {
    if (!isHttpError(e)) throw e;
    if (e.status === 401 || e.status === 403) return { ...base, token: false, message: "관리자 토큰이 맞지 않습니다." };
    return { ...base, message: e.message };
  }
}

export const clientAction = adminTokenAction;

/** The writer's media API with the admin token; parts go by XHR for their upload progress. */
function mediaAPI(token: string): MediaAPI {
  const auth = { Authorization: `Bearer ${token}` };
  const call = async (path: string, init: { method?: "GET" | "POST"; json?: unknown } = {}) => {
    try {
      return (await http<{ upload: Upload }>(`${MEDIA_API}${path}`, { ...init, headers: auth, expect: [201] })).upload;
    } catch (e) {
      if (isHttpError(e) && e.status >= 400 && e.status < 500) throw new RefusedError(e.message);
      throw e;
    }
  };
  return {
    create: (size, name) => call("/uploads", { method: "POST", json: { size, name } }),
    get: (id) => call(`/uploads/${id}`),
    complete: (id) => call(`/uploads/${id}/complete`, { method: "POST" }),
    put: (id, n, part, onBytes) =>
      new Promise<Upload>((resolve, reject) => {
        const x = new XMLHttpRequest();
        x.open("PUT", `${MEDIA_API}/uploads/${id}/parts/${n}`);
        x.setRequestHeader("Authorization", auth.Authorization);
        x.setRequestHeader("Content-Type", "application/octet-stream");
        x.upload.onprogress = (ev) => onBytes(ev.loaded);
        x.onerror = () => reject(new Error("연결이 끊겼습니다."));
        x.onload = () => {
          let body: { header?: { message?: string }; upload?: Upload } = {};
          try {
            body = JSON.parse(x.responseText);
          } catch {
            /* not the envelope: a proxy's page */
          }
          if (x.status === 200 && body.upload) resolve(body.upload);
          else if (x.status >= 400 && x.status < 500) reject(new RefusedError(body.header?.message || `요청이 거절되었습니다. (${x.status})`));
          else reject(new Error(body.header?.message || `서버 오류 (${x.status})`));
        };
        x.send(part);
      }),
  };
}

type FileState = { name: string; sent: number; total: number; done: boolean };

export default function AdminMedia() {
  const data = useLoaderData<typeof clientLoader>();
  const busy = useNavigation().state !== "idle";
  return (
    <main className={s.page} aria-busy={busy}>
      <div className={s.top}>
        <h1 className={s.h1}>콘텐츠 업로드</h1>
        {data.token && (
          <Form method="post">
            <input type="hidden" name="intent" value="forget" />
            <button type="submit" className={s.buttonQuiet}>
              토큰 지우기
            </button>
          </Form>
        )}
      </div>
      {data.message && (
        <div role="alert" className={s.alert}>
          {data.message}
        </div>
      )}
      {!data.token ? (
        <AdminTokenForm />
      ) : (
        <>
          <section className={s.panel} aria-labelledby="vol-title">
            <h2 id="vol-title" className={s.h2}>
              회차 선택
            </h2>
            <Form method="get" className={s.form} key={`${data.pid}-${data.no}`}>
              <label className={s.field}>
                작품 ID
                <input className={s.input} name="pid" defaultValue={data.pid} required pattern="[A-Za-z0-9_\-]{1,64}" />
              </label>
              <label className={s.field}>
                회차
                <input className={s.input} name="no" type="number" min={1} defaultValue={data.no || ""} required />
              </label>
              <button type="submit" className={s.button} disabled={busy}>
                열기
              </button>
            </Form>
          </section>
          {data.pid && data.no > 0 && <UploadPanel key={`${data.pid}-${data.no}`} pid={data.pid} no={data.no} />}
          {data.pid && data.no > 0 && <Jobs jobs={data.jobs} />}
          {data.pid && data.no > 0 && <Preview pid={data.pid} no={data.no} manifest={data.manifest} />}
        </>
      )}
    </main>
  );
}

/**
 * UploadPanel sends the chosen files one after another (each in resumable
 * parts, with its progress), then asks for one processing job and watches it.
 * Not a clientAction: a form submission reports no upload progress.
 */
function UploadPanel({ pid, no }: { pid: string; no: number }) {
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
        const a = await http<{ job: Job }>(`${MEDIA_API}/jobs/${job.id}`, { headers: { Authorization: `Bearer ${readAdminToken()}` } });
        setJob(a.job);
        if (a.job.state === "done" || a.job.state === "failed") revalidator.revalidate();
      } catch (e) {
        setError(isHttpError(e) ? e.message : "처리 상태를 불러오지 못했습니다.");
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
    setFiles(chosen.map((f) => ({ name: f.name, sent: 0, total: f.size, done: false })));
    const api = mediaAPI(readAdminToken());
    try {
      const ids: string[] = [];
      for (const [i, f] of chosen.entries()) {
        const u = await uploadFile(f, api, (sent, tot) => setFiles((fs) => fs.map((x, j) => (j === i ? { ...x, sent, total: tot } : x))));
        setFiles((fs) => fs.map((x, j) => (j === i ? { ...x, sent: x.total, done: true } : x)));
        ids.push(u.id);
      }
      const a = await http<{ job: Job }>(`${MEDIA_API}/jobs`, {
        method: "POST",
        json: { target: "volume", pid, no, uploads: ids },
        headers: { Authorization: `Bearer ${readAdminToken()}` },
        expect: [202],
      });
      setJob(a.job);
    } catch (err) {
      setError(isRefusal(err) || isHttpError(err) ? (err as Error).message : "업로드하지 못했습니다. 다시 시도해 주세요.");
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
          <input ref={input} className={s.input} type="file" name="files" multiple accept={ACCEPT} required disabled={running} />
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
              <progress className={m.progress} max={f.total || 1} value={f.sent} aria-label={`${f.name} 업로드`} />
              <span className={s.muted}>{f.done ? "완료" : `${Math.floor((100 * f.sent) / (f.total || 1))}%`}</span>
            </li>
          ))}
        </ul>
      )}
      {job && (
        <p role="status" className={m.jobState} data-testid="job-state" data-state={job.state}>
          작업 #{job.id}: {jobLabel(job)}
        </p>
      )}
    </section>
  );
}

function Jobs({ jobs }: { jobs: Job[] }) {
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

/** Preview: the processed pages a reader gets without a token (the preview), and the reader's viewer. */
function Preview({ pid, no, manifest }: { pid: string; no: number; manifest: Manifest | null }) {
  return (
    <section className={s.panel} aria-labelledby="pv-title">
      <h2 id="pv-title" className={s.h2}>
        미리보기
      </h2>
      {!manifest ? (
        <p className={s.muted}>아직 처리된 콘텐츠가 없습니다.</p>
      ) : (
        <>
          <p className={s.muted}>
            버전 {manifest.ver} · {manifest.kind === "text" ? `${total(manifest)}개 본문 조각` : `${total(manifest)}쪽`} · 무료 미리보기 {manifest.previewPages}쪽 ·{" "}
            {manifest.formats.join(", ").toUpperCase()}{" "}
            <Link className={s.link} to={`/viewer?pid=${encodeURIComponent(pid)}&no=${no}`}>
              독자 화면으로 보기
            </Link>
          </p>
          {manifest.kind === "images" && (
            <div className={m.strip} data-testid="media-preview">
              {manifest.pages.slice(0, Math.min(manifest.previewPages, 3)).map((p, i) => (
                <img key={i} className={m.stripImg} srcSet={srcSet(manifest, i + 1)} sizes="360px" src={pageURL(manifest, i + 1, fallbackWidth(p))} width={p.w} height={p.h} alt={`${i + 1}쪽`} loading="lazy" />
              ))}
            </div>
          )}
        </>
      )}
    </section>
  );
}
