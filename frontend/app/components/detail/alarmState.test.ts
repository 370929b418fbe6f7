import { describe, expect, it } from "vitest";
import { alarmState } from "./alarmState";

describe("alarmState (the member's alarm over the cached detail's)", () => {
  it("shows the member's alarm from the status although the edge's detail says off", () => {
    expect(alarmState(null, { isAlarm: true }, false)).toBe(true);
    expect(alarmState(null, { isAlarm: false }, true)).toBe(false);
  });
  it("keeps the detail's value until the status answers, or for a visitor", () => {
    expect(alarmState(null, null, false)).toBe(false);
    expect(alarmState(null, undefined, true)).toBe(true);
    expect(alarmState(null, {}, false)).toBe(false);
  });
  it("follows the last click over a status asked before it", () => {
    expect(alarmState(false, { isAlarm: true }, false)).toBe(false);
    expect(alarmState(true, { isAlarm: false }, false)).toBe(true);
  });
});
