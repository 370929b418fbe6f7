// Uploading a volume's files through the writer's admin media API (issue 16):
// each file in parts that resume after a dropped connection, then one
// processing job for the volume, watched until it is done or failed.
//
//   POST /admin/api/v1/media/uploads {size, name}      -> upload {id, partSize, parts}
//   PUT  /admin/api/v1/media/uploads/<id>/parts/<n>    raw bytes, in order from 1
//   GET  /admin/api/v1/media/uploads/<id>              what arrived (resume from parts+1)
//   POST /admin/api/v1/media/uploads/<id>/complete     checked and stored, or refused (4xx)
//   POST /admin/api/v1/media/jobs {target, pid, no, uploads}  -> job {id, state}
//   GET  /admin/api/v1/media/jobs/<id>                 queued, running, failed (reason), done

export type Upload = { id: string; size: number; name: string; partSize: number; parts: number; received: number; state: string; kind?: string };
export type Job = { id: number; target: string; pid?: string; no?: number; state: "queued" | "running" | "failed" | "done"; reason?: string; attempts: number; url?: string };

/** What the upload needs from the network; the screen passes the real calls, tests a fake. */
export type MediaAPI = {
  create(size: number, name: string): Promise<Upload>;
  /** put sends part n; onBytes reports the bytes of this part sent so far. */
  put(id: string, n: number, part: Blob, onBytes: (sent: number) => void): Promise<Upload>;
  get(id: string): Promise<Upload>;
  complete(id: string): Promise<Upload>;
};

export class RefusedError extends Error {}

/** A refusal the writer answered (4xx): sending the same bytes again cannot help. */
export const isRefusal = (e: unknown) => e instanceof RefusedError;

/**
 * uploadFile sends file in the writer's part size. A part that fails for any
 * reason but a refusal (a dropped connection, a 5xx) is retried after asking
 * the writer what arrived, so a part it did receive is not sent twice and the
 * upload continues where it stopped. onProgress gets the bytes the writer
 * holds plus those of the part in flight, never going back.
 */
export async function uploadFile(file: Blob & { name?: string }, api: MediaAPI, onProgress: (sent: number, total: number) => void, retries = 3, wait = (ms: number) => new Promise((r) => setTimeout(r, ms))): Promise<Upload> {
  let u = await api.create(file.size, file.name ?? "");
  let shown = 0;
  const show = (n: number) => {
    shown = Math.max(shown, Math.min(n, file.size));
    onProgress(shown, file.size);
  };
  let failures = 0;
  while (u.received < file.size) {
    const n = u.parts + 1;
    const from = u.received;
    const part = file.slice(from, Math.min(from + u.partSize, file.size));
    try {
      u = await api.put(u.id, n, part, (sent) => show(from + sent));
      failures = 0;
      show(u.received);
    } catch (e) {
      if (isRefusal(e) || ++failures > retries) throw e;
      await wait(500 * failures);
      u = await api.get(u.id);
    }
  }
  return api.complete(u.id);
}

/** The Korean state of a processing job, as the screen shows it. */
export function jobLabel(j: Pick<Job, "state" | "reason">): string {
  switch (j.state) {
    case "queued":
      return "처리 대기 중";
    case "running":
      return "처리 중";
    case "failed":
      return `처리 실패: ${j.reason || "알 수 없는 오류"}`;
    case "done":
      return "처리 완료";
  }
}

/** Which files a volume takes: pictures in order, one ZIP/CBZ, or one EPUB. */
export const ACCEPT = "image/jpeg,image/png,image/webp,.zip,.cbz,.epub,application/zip,application/epub+zip";

/** sortFiles orders a strip's files by name as the content team numbers them (2 before 10). */
export function sortFiles<T extends { name: string }>(files: T[]): T[] {
  return [...files].sort((a, b) => a.name.localeCompare(b.name, undefined, { numeric: true }));
}
