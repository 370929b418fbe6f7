// Money the reader sees (issues 24 and 25), against the real writer and the PG
// sandbox: the balance shown everywhere right after a charge or a purchase,
// the first-charge bonus the writer really grants shown before paying, money
// by channel (the app channels show the money the writer spends there) and
// the bonuses hidden in the iOS app.
import type { Page } from "@playwright/test";
import { expect, openMenu, test } from "./fixtures";
import { member, paidWork, sectionPath } from "./members";

const won = (n: number) => `${n.toLocaleString("en-US")}원`;
const ANDROID = "Mozilla/5.0 (Linux; Android 14; Pixel 7) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Mobile Safari/537.36";
const IPHONE = "Mozilla/5.0 (iPhone; CPU iPhone OS 17_4 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Mobile/15E148";

/** Charges amount through the Toss sandbox from the charge page; stays on it. */
async function charge(page: Page, amount: number) {
  await page.getByRole("button", { name: `${won(amount)} 충전하기` }).click();
  await page.getByRole("button", { name: "결제하기" }).click(); // the Toss sandbox's checkout page
  await expect(page.getByTestId("floating-message")).toHaveText(`${won(amount)} 충전되었습니다.`);
}

// The Toss sandbox's checkout page is the third party's: its missing favicon is its business.
test.use({ allowConsole: [/\/sandbox\/checkout\/[\w-]+: Failed to load resource/] });

test("the bonus promised is the bonus paid, and the new balance shows at once on the charge page, the sidebar and the unlock sheet", async ({ page, request }) => {
  const { detail, vol } = await paidWork(request, "webtoon");
  await member(page);
  const pct = (await (await page.request.get("/home/api/v1/wallet")).json()).firstChargeBonusPct as number;
  expect(pct).toBeGreaterThan(0);
  await page.goto("/payment/recharge.asp");
  // The event's promise and the bonus line say the writer's number.
  await expect(page.getByText(`첫 충전 시 충전 금액의 ${pct}%를 보너스로 드립니다.`)).toBeVisible();
  await expect(page.getByTestId("balance")).toHaveText("0원");
  await page.getByRole("radio", { name: "10,000원" }).click();
  const bonus = Math.floor((10000 * pct) / 100);
  await expect(page.getByTestId("first-charge-bonus")).toContainText(`+${won(bonus)}`);

  await charge(page, 10000);
  await expect(page.getByRole("status").filter({ hasText: "충전 완료" })).toHaveText(`10,000원 충전 완료 (보너스 ${won(bonus)})`);
  // No reload: the answer of the charge is shown.
  await expect(page.getByTestId("balance")).toHaveText("10,000원");
  await expect(page.getByTestId("first-charge-bonus")).toBeHidden();
  const w = await (await page.request.get("/home/api/v1/wallet")).json();
  expect([w.bluemoney, w.blueMileage]).toEqual([10000, bonus]);
  const side = await openMenu(page);
  await expect(side.getByTestId("money")).toHaveText("10,000원");
  await expect(side.getByTestId("mileage")).toHaveText(won(bonus));
  await expect(side.getByTestId("first-charge-banner")).toHaveCount(0);
  await side.getByRole("button", { name: "메뉴 닫기" }).click();

  // A purchase: the sheet shows the balance the writer answered, without a reload.
  await page.evaluate(() => localStorage.setItem("quickView", "off"));
  await page.goto(`/${sectionPath(detail.prodInfo.section)}/detail/${detail.prodInfo.pid}?tab=V`);
  await page.locator(`[data-testid=vol][data-no="${vol.no}"]`).click();
  const sheet = page.getByTestId("unlock-sheet");
  await expect(sheet.getByTestId("sheet-balance")).toHaveText(`보유 블루머니 10,000원 · 마일리지 ${won(bonus)}`);
  await sheet.locator("[data-kind=buy]").click();
  await page.getByTestId("confirm-popup").getByRole("button", { name: "확인" }).click();
  await expect(page.getByTestId("floating-message")).toContainText("을 열었습니다.", { timeout: 10_000 });
  // Mileage is spent first (writer/money spend).
  const other = detail.volList.find((v) => !v.isFree && v.no !== vol.no && v.buyInfo.price > 0);
  expect(other, "a second paid volume").toBeTruthy();
  await page.locator(`[data-testid=vol][data-no="${other!.no}"]`).click();
  await expect(page.getByTestId("unlock-sheet").getByTestId("sheet-balance")).toHaveText(
    `보유 블루머니 10,000원 · 마일리지 ${won(bonus - vol.buyInfo.price)}`,
  );
});

test.describe("Android app AC: Android money, as the writer spends it there", () => {
  test.use({ userAgent: `${ANDROID} SFApp/AC/6.1.0/kr.storefront.app` });
  test("the charge page shows Android money, and the charge lands in it at once", async ({ page }) => {
    await member(page);
    await page.goto("/payment/recharge.asp");
    await expect(page.getByText("보유 안드로이드 머니")).toBeVisible();
    await expect(page.getByTestId("balance")).toHaveText("0원");
    await page.getByRole("radio", { name: "1,000원" }).click();
    await charge(page, 1000);
    await expect(page.getByTestId("balance")).toHaveText("1,000원");
    const w = await (await page.request.get("/home/api/v1/wallet", { headers: { "X-Channel": "AC" } })).json();
    expect([w.shownMoney, w.appmoney_a, w.bluemoney]).toEqual(["android", 1000, 0]);
  });
});

test.describe("iOS app IA: iOS money, no join-bonus or first-charge offers", () => {
  test.use({ userAgent: `${IPHONE} SFApp/IA/6.1.0/kr.storefront.ios` });
  test("the charge page shows iOS money without the first-charge promise; the join bonus is not offered", async ({ page }) => {
    await member(page);
    await page.goto("/payment/recharge.asp");
    await expect(page.getByText("보유 iOS 머니")).toBeVisible();
    await expect(page.getByTestId("balance")).toHaveText("0원");
    await expect(page.getByText("첫 충전")).toHaveCount(0);
    await expect(page.getByTestId("first-charge-bonus")).toHaveCount(0);
    await page.goto("/join/event.asp");
    await expect(page.getByText("이 앱에서는 진행하지 않는 이벤트입니다.")).toBeVisible();
    await expect(page.getByRole("button", { name: "가입 보너스 받기" })).toHaveCount(0);
  });
});

test("giving up in the payment widget comes back to the charge page, says so and charges nothing", async ({ page }) => {
  await member(page);
  await page.goto("/payment/recharge.asp");
  await page.getByRole("button", { name: `${won(10000)} 충전하기` }).click();
  await page.getByRole("button", { name: "취소" }).click(); // the Toss sandbox's checkout page: the buyer gives up
  await expect(page.getByTestId("floating-message")).toHaveText("결제가 취소되었습니다.");
  await expect(page).toHaveURL(/\/payment\/recharge\.asp\?.*code=PAY_PROCESS_CANCELED/);
  await expect(page.getByTestId("balance")).toHaveText("0원");
  const charges = (await (await page.request.get("/home/api/v1/charge/history")).json()).list as { status: string }[];
  expect(charges.map((c) => c.status)).toEqual(["requested"]);
});

test("a saved work stays saved: the work list and the author list load side by side", async ({ page, request }) => {
  const { detail } = await paidWork(request, "comic", false);
  await member(page);
  const url = `/${sectionPath(detail.prodInfo.section)}/detail/${detail.prodInfo.pid}`;
  await page.goto(url);
  const zzim = page.getByRole("button", { name: "찜", exact: true });
  await zzim.click();
  await expect(zzim).toHaveAttribute("aria-pressed", "true");
  const lists = page.waitForResponse((r) => r.url().endsWith("/zzim-list") && r.request().postDataJSON().zzim_type === "prod");
  await page.reload();
  const sent = (await lists).request().postDataJSON();
  expect(sent).toMatchObject({ zzim_type: "prod", channel: "AW", adultLevel: 0, section: "all" });
  await expect(zzim).toHaveAttribute("aria-pressed", "true");
});
