import { describe, expect, it } from "vitest";
import { CHAT_TEXT, connector } from "./chatState";

describe("chat states (loading, ready, failed)", () => {
  it("goes loading then ready when the connection answers", async () => {
    const seen: string[] = [];
    await connector((s) => seen.push(s))(async () => {});
    expect(seen).toEqual(["loading", "ready"]);
  });
  it("goes loading then failed when it does not, and a retry can make it ready", async () => {
    const seen: string[] = [];
    const connect = connector((s) => seen.push(s));
    await connect(async () => {
      throw new Error("down");
    });
    await connect(async () => {});
    expect(seen).toEqual(["loading", "failed", "loading", "ready"]);
  });
  it("ignores an attempt a retry superseded", async () => {
    const seen: string[] = [];
    const connect = connector((s) => seen.push(s));
    let fail!: (e: Error) => void;
    const first = connect(() => new Promise<void>((_, rej) => (fail = rej)));
    const second = connect(async () => {});
    await second;
    fail(new Error("late"));
    await first;
    expect(seen).toEqual(["loading", "loading", "ready"]);
  });
  it("says each state in Korean", () => {
    expect(Object.keys(CHAT_TEXT).sort()).toEqual(["failed", "loading", "ready"]);
    for (const t of Object.values(CHAT_TEXT)) expect(t).toMatch(/[가-힣]/);
  });
});
