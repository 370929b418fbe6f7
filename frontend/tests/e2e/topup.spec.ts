// Automatic top-up (issue 32) against the real stack: the Toss sandbox's
// card-registration window, the setting on the top-up screen, purchases
// until the balance falls under the threshold, the writer's top-up worker
// charging the billing key at the sandbox, and the receipt in the member's
// history (the top-up screen and 블루머니 내역) and as a Web Push
// notification, through the fake push service to the store's service worker.
import AxeBuilder from "@axe-core/playwright";
import type { Page } from "@playwright/test";
import { expect, test } from "./fixtures";
import { fakePushManager, pushMessages, showInWorker, startFakePush } from "./fakepush";
import { member, paidWork, sectionPath } from "./members";

const won = (n: number) => `${n.toLocaleString("en-US")}원`;
type Wallet = { bluemoney: number; blueMileage: number };

// The sandbox's windows are the third party's: their missing favicon is their business.
test.use({ allowConsole: [/\/sandbox\/(checkout|billing)\/[\w-]+: Failed to load resource/] });

let fake: { url: string; stop: () => void };
test.beforeAll(async () => {
  fake = await startFakePush();
});
test.afterAll(() => fake?.stop());

/** Serious or critical axe findings on the page as it is. */
async function axe(page: Page): Promise<string[]> {
  const { violations } = await new AxeBuilder({ page }).analyze();
  return violations.filter((v) => v.impact === "serious" || v.impact === "critical").map((v) => `${v.id}: ${v.nodes.map((n) => n.target.join(" ")).join(", ")}`);
}

async function wallet(page: Page): Promise<Wallet> {
  const r = await page.request.get("/home/api/v1/wallet");
  expect(r.status(), await r.text()).toBe(200);
  return (await r.json()) as Wallet;
}

test("a member registers a card, turns automatic top-up on, buys until it fires, and gets the receipt in the history and as a notification", async ({ page, context, request, baseURL }) => {
  const { detail } = await paidWork(request, "webtoon");
  const paid = detail.volList.filter((v) => !v.isFree && v.pages > v.previewPages && v.buyInfo.price > 0);
  const subs = await fakePushManager(page, request, fake.url);
  await context.grantPermissions(["notifications"], { origin: baseURL });
  await member(page);

  // Blue money to spend: a 1,000-won charge through the sandbox's checkout
  // (the first-charge bonus, 100 mileage, is spent first).
  await page.goto("/payment/recharge.asp");
  await page.getByRole("radio", { name: "1,000원" }).click();
  await page.getByRole("button", { name: `${won(1000)} 충전하기` }).click();
  await page.getByRole("button", { name: "결제하기" }).click();
  await expect(page.getByTestId("floating-message")).toHaveText(`${won(1000)} 충전되었습니다.`);
  const start = await wallet(page);
  expect(start.bluemoney).toBe(1000);

  // The card: the store's button opens the sandbox's card-registration
  // window, whose approval comes back with the authKey the writer exchanges
  // for the billing key.
  await page.goto("/payment/auto");
  await expect(page.getByText("등록한 카드가 없습니다.")).toBeVisible();
  await expect(page.getByRole("button", { name: "자동 충전 켜기" })).toBeDisabled();
  await page.getByRole("button", { name: "카드 등록하기" }).click();
  await expect(page).toHaveURL(/\/sandbox\/billing\//);
  await expect(page.getByRole("heading", { name: "자동결제 카드 등록" })).toBeVisible();
  await page.getByRole("button", { name: "카드 등록하기" }).click();
  await expect(page).toHaveURL(/\/payment\/auto\?registered=1$/);
  await expect(page.getByTestId("card")).toHaveCount(1);
  await expect(page.getByTestId("card")).toContainText("43301234****123*");

  // Receipts on this device, then the threshold: under 1,000 won, 5,000 won.
  await page.getByRole("button", { name: "이 기기로 충전 알림 받기" }).click();
  await expect(page.getByTestId("floating-message")).toHaveText("충전 영수증과 자동 충전 알림을 이 기기로 보내 드립니다.");
  expect(subs).toHaveLength(1);
  const settings = page.getByRole("form", { name: "자동 충전" });
  await settings.getByRole("radio", { name: "잔액이 부족할 때" }).check();
  await settings.getByLabel("기준 잔액(원) 또는 충전일(1~28일)").fill("1000");
  await settings.getByLabel("충전 금액(원)").fill("5000");
  await settings.getByRole("button", { name: "자동 충전 켜기" }).click();
  await expect(page.getByTestId("floating-message")).toHaveText(`잔액이 ${won(1000)}보다 적어지면 ${won(5000)} 자동 충전합니다.`);
  await expect(settings.getByRole("heading", { name: "자동 충전 사용 중" })).toBeVisible();
  await expect(page.getByTestId("notice")).toHaveCount(0);

  // Buy episodes on the detail page until blue money falls under 1,000.
  await page.evaluate(() => localStorage.setItem("quickView", "off"));
  await page.goto(`/${sectionPath(detail.prodInfo.section)}/detail/${detail.prodInfo.pid}?tab=V`);
  let spent = 0;
  for (const v of paid) {
    if ((await wallet(page)).bluemoney < 1000) break;
    const row = page.locator(`[data-testid=vol][data-no="${v.no}"]`);
    await row.click();
    await page.getByTestId("unlock-sheet").locator("[data-kind=buy]").click();
    await page.getByTestId("confirm-popup").getByRole("button", { name: "확인" }).click();
    await expect(row.getByTestId("vol-state")).toHaveText("소장");
    spent += v.buyInfo.price;
  }
  const crossed = await wallet(page);
  expect(crossed.bluemoney, "the purchases crossed the threshold").toBeLessThan(1000);
  expect(crossed.bluemoney + crossed.blueMileage).toBe(start.bluemoney + start.blueMileage - spent);

  // The writer's top-up worker (every TOPUP_POLL) charges the card once.
  await page.goto("/payment/auto");
  const receipt = page.getByTestId("notice").filter({ hasText: "자동 충전 영수증" });
  await expect(async () => {
    await page.reload();
    await expect(receipt).toHaveCount(1, { timeout: 1_000 });
  }).toPass({ timeout: 60_000 });
  await expect(receipt).toContainText(`블루머니 ${won(5000)}이 등록한 카드로 충전되었습니다.`);
  await expect(page.getByRole("form", { name: "자동 충전" }).getByRole("heading", { name: "자동 충전 사용 중" })).toBeVisible();
  expect((await wallet(page)).bluemoney).toBe(crossed.bluemoney + 5000);

  // The history: the charge is the automatic one, and the top-up is in the ledger.
  const charges = (await (await page.request.get("/home/api/v1/charge/history")).json()).list as { kind: string; amount: number; status: string }[];
  expect(charges.filter((c) => c.kind === "auto")).toEqual([expect.objectContaining({ amount: 5000, status: "done" })]);
  await page.goto("/blueincome");
  await expect(page.getByTestId("ledger-row").first()).toContainText("자동 충전");
  await expect(page.getByTestId("ledger-row").first()).toContainText(`+${won(5000)}`);
  expect(await axe(page), "블루머니 내역").toEqual([]);

  // The notification: the push service got the receipt once, and the
  // store's worker shows it; it opens the top-up screen.
  const endpoint = subs[0].endpoint;
  await expect.poll(async () => (await pushMessages(request, fake.url, endpoint)).messages.length, { timeout: 30_000 }).toBe(1);
  const got = await pushMessages(request, fake.url, endpoint);
  expect(got.refused).toEqual([]);
  const msg = got.messages[0];
  expect(msg.payload).toMatchObject({ title: "자동 충전 영수증", url: "/payment/auto", tag: expect.stringMatching(/^money:\d+$/) });
  expect(msg.payload.body).toContain(`블루머니 ${won(5000)}이 등록한 카드로 충전되었습니다.`);
  const shown = await showInWorker(page, context, baseURL!, msg.payload);
  await expect.poll(shown, { timeout: 20_000 }).toEqual([{ title: "자동 충전 영수증", body: msg.payload.body, tag: msg.payload.tag, url: "/payment/auto" }]);
  await page.goto((await shown())[0].url);
  await expect(page.getByTestId("notice").filter({ hasText: msg.payload.body })).toHaveCount(1);
  // The screen with a card, the setting on and a receipt passes axe.
  expect(await axe(page), "/payment/auto").toEqual([]);
});
