import { describe, expect, it } from "vitest";
import { jobLabel, RefusedError, sortFiles, uploadFile, type MediaAPI, type Upload } from "./mediaUpload";

/** A writer in memory: parts in order, like the real one; drops the connection where told. */
function fakeWriter(partSize: number, opts: { dropAfterStore?: number[]; dropBeforeStore?: number[]; refuseComplete?: boolean } = {}) {
  const drops = { after: new Set(opts.dropAfterStore), before: new Set(opts.dropBeforeStore) };
  let u: Upload = { id: "u1", size: 0, name: "", partSize, parts: 0, received: 0, state: "uploading" };
  const chunks: Blob[] = [];
  const log: string[] = [];
  const api: MediaAPI = {
    async create(size, name) {
      u = { ...u, size, name };
      return { ...u };
    },
    async put(_id, n, part, onBytes) {
      log.push(`put ${n}`);
      if (n !== u.parts + 1) throw new RefusedError("파트는 1번부터 순서대로 보내야 합니다.");
      onBytes(part.size / 2);
      if (drops.before.delete(n)) throw new TypeError("Failed to fetch");
      chunks.push(part);
      u = { ...u, parts: n, received: u.received + part.size };
      if (drops.after.delete(n)) throw new TypeError("Failed to fetch"); // stored, answer lost
      onBytes(part.size);
      return { ...u };
    },
    async get() {
      log.push("get");
      return { ...u };
    },
    async complete() {
      log.push("complete");
      if (opts.refuseComplete) throw new RefusedError("지원하지 않는 파일 형식입니다.");
      return { ...u, state: "complete" };
    },
  };
  return { api, chunks, log };
}

const file = (n: number) => Object.assign(new Blob([new Uint8Array(n).map((_, i) => i % 251)]), { name: "001.jpg" });

describe("uploadFile", () => {
  it("sends every part in order and completes; progress only grows and ends at the size", async () => {
    const w = fakeWriter(4);
    const seen: number[] = [];
    const u = await uploadFile(file(10), w.api, (s) => seen.push(s), 3, async () => {});
    expect(u.state).toBe("complete");
    expect(w.log).toEqual(["put 1", "put 2", "put 3", "complete"]);
    expect(new Uint8Array(await new Blob(w.chunks).arrayBuffer())).toEqual(new Uint8Array(await file(10).arrayBuffer()));
    expect(seen.at(-1)).toBe(10);
    expect(seen).toEqual([...seen].sort((a, b) => a - b));
  });
  it("resumes after a dropped connection from what the writer holds: a part it stored is not sent again", async () => {
    const w = fakeWriter(4, { dropAfterStore: [2] });
    await uploadFile(file(10), w.api, () => {}, 3, async () => {});
    expect(w.log).toEqual(["put 1", "put 2", "get", "put 3", "complete"]);
    const w2 = fakeWriter(4, { dropBeforeStore: [2] });
    await uploadFile(file(10), w2.api, () => {}, 3, async () => {});
    expect(w2.log).toEqual(["put 1", "put 2", "get", "put 2", "put 3", "complete"]);
    expect(new Uint8Array(await new Blob(w2.chunks).arrayBuffer())).toEqual(new Uint8Array(await file(10).arrayBuffer()));
  });
  it("gives up on a refusal at once, and after the retries on a writer that keeps failing", async () => {
    const w = fakeWriter(4, { refuseComplete: true });
    await expect(uploadFile(file(10), w.api, () => {}, 3, async () => {})).rejects.toThrow("지원하지 않는 파일 형식입니다.");
    const down = fakeWriter(4, { dropBeforeStore: [1] });
    down.api.put = async () => {
      throw new TypeError("Failed to fetch");
    };
    await expect(uploadFile(file(10), down.api, () => {}, 2, async () => {})).rejects.toThrow("Failed to fetch");
  });
});

describe("labels and order", () => {
  it("job states in Korean with the reason of a failure", () => {
    expect(jobLabel({ state: "queued" })).toBe("처리 대기 중");
    expect(jobLabel({ state: "running" })).toBe("처리 중");
    expect(jobLabel({ state: "failed", reason: "이미지가 너무 큽니다." })).toBe("처리 실패: 이미지가 너무 큽니다.");
    expect(jobLabel({ state: "done" })).toBe("처리 완료");
  });
  it("strip files in the team's numbering", () => {
    expect(sortFiles([{ name: "10.jpg" }, { name: "2.jpg" }, { name: "1.jpg" }]).map((f) => f.name)).toEqual(["1.jpg", "2.jpg", "10.jpg"]);
  });
});
