// The tables of cases under contract/cases/ that the Go tests run against the
// writer and the edge: the frontend's copy of a shared rule is run against the
// same table, so the two tiers cannot drift.
import { readFileSync } from "node:fs";
import path from "node:path";

export function contractCases<T>(name: string): T {
  return JSON.parse(readFileSync(path.resolve(import.meta.dirname, "../../../contract/cases", name), "utf8")) as T;
}

export type MoneyCases = {
  cases: { channel: string; money: "blue" | "android" | "ios"; bonusBanners: boolean }[];
  firstChargeBonus: { amount: number; pct: number; bonus: number }[];
};

export type AudienceCases = {
  cases: { channel: string; login: boolean; level: number; teenVersion: boolean; adultContent: boolean; gate: "none" | "login" | "verify" | "teen" | "toggle" | "notInApp" }[];
};
