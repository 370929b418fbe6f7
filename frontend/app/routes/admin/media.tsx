import { Form, useLoaderData, useNavigation } from "react-router";
import * as s from "~/components/admin/analytics.css";
import {
  StaffScreen,
  StaffScreenError,
  readStaff,
  staffSignInAction,
  type Staff,
} from "~/components/admin/StaffSignIn";
import { MEDIA_API } from "~/components/admin/mediaAPI";
import { Jobs } from "~/components/admin/MediaJobs";
import { Preview } from "~/components/admin/MediaPreview";
import type { Job } from "~/components/admin/mediaUpload";
import { UploadPanel } from "~/components/admin/UploadPanel";
import { getManifest, type Manifest } from "~/components/viewer/media";
import { http } from "~/utils/api";
import { isHttpError } from "~/utils/http";
import { pageTitle } from "~/utils/meta";
import { getVolumePage } from "~/utils/storeApi";
import { DETAIL_VOLUMES_MAX, pageOf } from "~/utils/volumes";

export const meta = () => [
  { title: pageTitle("콘텐츠 업로드") },
  { name: "robots", content: "noindex" },
];

type Data = {
  staff: Staff | null;
  pid: string;
  no: number;
  jobs: Job[];
  manifest: Manifest | null;
  message?: string;
};

/**
 * /admin/media?pid=&no=: the content team uploads a volume's files (pictures
 * in order, one ZIP/CBZ or one EPUB) with progress, watches the processing
 * job, and previews the volume as a reader gets it. A content manager signs in
 * as staff (the writer's HttpOnly session cookie; no token in the page).
 */
export async function clientLoader({
  request,
}: {
  request: Request;
}): Promise<Data> {
  const url = new URL(request.url);
  const pid = (url.searchParams.get("pid") ?? "").trim();
  const no = Number(url.searchParams.get("no") ?? "") || 0;
  const staff = await readStaff(request.signal);
  const base: Data = { staff, pid, no, jobs: [], manifest: null };
  if (!staff || !pid || no < 1) return base;
  try {
    const [jobs, vols] = await Promise.all([
      http<{ jobs: Job[] }>(`${MEDIA_API}/jobs`, {
        query: { pid, no },
        signal: request.signal,
      }),
      // The page of 1,000 that holds volume no: the whole list of a work of up to 1,000.
      getVolumePage(
        pid,
        "old",
        pageOf(no, DETAIL_VOLUMES_MAX),
        DETAIL_VOLUMES_MAX,
        request.signal,
      ).catch(() => null),
    ]);
    // The list names the volumes with processed content; only those have a manifest.
    const hasMedia = !!vols?.volList.find((v) => v.no === no)?.mediaBase;
    return {
      ...base,
      jobs: jobs.jobs,
      manifest: hasMedia ? await getManifest(pid, no, request.signal) : null,
    };
  } catch (e) {
    if (!isHttpError(e)) throw e;
    if (e.status === 401) return { ...base, staff: null };
    if (e.status === 403)
      return { ...base, message: "콘텐츠를 올릴 권한이 없는 계정입니다." };
    return { ...base, message: e.message };
  }
}

export const clientAction = staffSignInAction;

export default function AdminMedia() {
  const data = useLoaderData<typeof clientLoader>();
  const busy = useNavigation().state !== "idle";
  return (
    <StaffScreen
      title="콘텐츠 업로드"
      staff={data.staff}
      message={data.message}
    >
      <>
        <section className={s.panel} aria-labelledby="vol-title">
          <h2 id="vol-title" className={s.h2}>
            회차 선택
          </h2>
          <Form method="get" className={s.form} key={`${data.pid}-${data.no}`}>
            <label className={s.field}>
              작품 ID
              <input
                className={s.input}
                name="pid"
                defaultValue={data.pid}
                required
                pattern="[A-Za-z0-9_\-]{1,64}"
              />
            </label>
            <label className={s.field}>
              회차
              <input
                className={s.input}
                name="no"
                type="number"
                min={1}
                defaultValue={data.no || ""}
                required
              />
            </label>
            <button type="submit" className={s.button} disabled={busy}>
              열기
            </button>
          </Form>
        </section>
        {data.pid && data.no > 0 && (
          <UploadPanel
            key={`${data.pid}-${data.no}`}
            pid={data.pid}
            no={data.no}
          />
        )}
        {data.pid && data.no > 0 && <Jobs jobs={data.jobs} />}
        {data.pid && data.no > 0 && (
          <Preview pid={data.pid} no={data.no} manifest={data.manifest} />
        )}
      </>
    </StaffScreen>
  );
}

export function ErrorBoundary() {
  return <StaffScreenError title="콘텐츠 업로드" />;
}
