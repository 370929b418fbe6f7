import { http } from "~/utils/api";
import { isHttpError } from "~/utils/http";
import { RefusedError, type MediaAPI, type Upload } from "./mediaUpload";

export const MEDIA_API = "/admin/api/v1/media";

/**
 * The writer's media API as the signed-in staff member (the HttpOnly sf_staff
 * cookie goes with every same-origin call); parts go by XHR for their upload
 * progress.
 */
export function mediaAPI(): MediaAPI {
  const call = async (
    path: string,
    init: { method?: "GET" | "POST"; json?: unknown } = {},
  ) => {
    try {
      return (
        await http<{ upload: Upload }>(`${MEDIA_API}${path}`, {
          ...init,
          expect: [201],
        })
      ).upload;
    } catch (e) {
      if (isHttpError(e) && e.status >= 400 && e.status < 500)
        throw new RefusedError(e.message);
      throw e;
    }
  };
  return {
    create: (size, name) =>
      call("/uploads", { method: "POST", json: { size, name } }),
    get: (id) => call(`/uploads/${id}`),
    complete: (id) => call(`/uploads/${id}/complete`, { method: "POST" }),
    put: (id, n, part, onBytes) =>
      new Promise<Upload>((resolve, reject) => {
        const x = new XMLHttpRequest();
        x.open("PUT", `${MEDIA_API}/uploads/${id}/parts/${n}`);
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
          else if (x.status >= 400 && x.status < 500)
            reject(
              new RefusedError(
                body.header?.message || `요청이 거절되었습니다. (${x.status})`,
              ),
            );
          else
            reject(
              new Error(body.header?.message || `서버 오류 (${x.status})`),
            );
        };
        x.send(part);
      }),
  };
}
