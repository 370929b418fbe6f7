// Prints the slowest end-to-end tests and the time per spec file from
// Playwright's JSON report (playwright.config.ts writes it), so the test
// command's log says where the browser step's minutes go.
import { readFileSync } from "node:fs";

const file = process.argv[2] ?? "test-results-report.json";
const report = JSON.parse(readFileSync(file, "utf8"));
const tests = [];
const walk = (suite, path) => {
  for (const s of suite.suites ?? []) walk(s, s.file ?? path);
  for (const spec of suite.specs ?? []) {
    for (const t of spec.tests ?? []) {
      const ms = (t.results ?? []).reduce((a, r) => a + (r.duration ?? 0), 0);
      tests.push({ file: spec.file ?? path, title: spec.title, ms, status: t.status });
    }
  }
};
for (const s of report.suites ?? []) walk(s, s.file);
const byFile = new Map();
for (const t of tests) byFile.set(t.file, (byFile.get(t.file) ?? 0) + t.ms);
const sec = (ms) => `${(ms / 1000).toFixed(1)}s`.padStart(7);
const total = tests.reduce((a, t) => a + t.ms, 0);
console.log(`e2e: ${tests.length} tests, ${sec(total)} of test time (summed over workers)`);
console.log("slowest spec files:");
for (const [f, ms] of [...byFile].sort((a, b) => b[1] - a[1]).slice(0, 12)) console.log(`${sec(ms)}  ${f}`);
console.log("slowest tests:");
for (const t of [...tests].sort((a, b) => b.ms - a.ms).slice(0, 15)) console.log(`${sec(t.ms)}  ${t.file} › ${t.title} (${t.status})`);
// Passed only when tried again (CI retries once): named, so a flaky test is
// seen and fixed rather than hidden by the retry.
for (const t of tests.filter((t) => t.status === "flaky")) console.log(`flaky: ${t.file} › ${t.title}`);
