// The jumping pass on sale at /jumpingpass, bought from the writer through the
// real store: login first, a confirmation, the charge path when the balance is
// short, and the passes the member then holds.
import { expect, test } from "./fixtures";
import { member } from "./members";

type Offer = { price: number; days: number };
const KST_MS = 9 * 3600 * 1000;
const kst = (iso: string) => {
  const k = new Date(Date.parse(iso) + KST_MS).toISOString();
  return `${k.slice(0, 4)}.${k.slice(5, 7)}.${k.slice(8, 10)} ${k.slice(11, 16)}`;
};
const won = (n: number) => `${n.toLocaleString("en-US")}원`;

test("a visitor sees the price and term, and buying asks to log in first", async ({ page, request }) => {
  const offer = (await (await request.get("/home/api/v1/jumpingpass")).json()) as Offer;
  await page.goto("/jumpingpass");
  const box = page.getByRole("group", { name: "점핑패스 구매" });
  await expect(box.getByTestId("jp-price")).toHaveText(won(offer.price));
  await expect(box.getByTestId("jp-term")).toHaveText(`구매 후 ${offer.days}일 동안 사용`);
  await box.getByRole("button", { name: "점핑패스 구매하기" }).click();
  const popup = page.getByTestId("confirm-popup");
  await expect(popup).toContainText("로그인이 필요한 서비스입니다.");
  await popup.getByRole("button", { name: "로그인" }).click();
  await expect(page).toHaveURL(/\/nuxgin\?url=%2Fjumpingpass$/);
});

test.describe("a member", () => {
  // The Toss sandbox's checkout page is the third party's: its missing favicon is its business.
  test.use({ allowConsole: [/\/sandbox\/checkout\/[\w-]+: Failed to load resource/] });

  test("charges from the short-balance prompt, buys the pass, sees it; a second one with a short balance goes to the charge page", async ({ page, request }) => {
    const offer = (await (await request.get("/home/api/v1/jumpingpass")).json()) as Offer;
    expect(offer.price, "the demo sells the pass for more than the join bonus").toBeGreaterThan(3000);
    await member(page);
    expect((await page.request.post("/home/api/v1/wallet/join-bonus")).status()).toBe(200); // 3,000 mileage
    await page.goto("/jumpingpass");
    const box = page.getByRole("group", { name: "점핑패스 구매" });
    const buy = box.getByRole("button", { name: "점핑패스 구매하기" });
    const popup = page.getByTestId("confirm-popup");
    await expect(box.getByTestId("jp-owned")).toHaveCount(0);

    // Short: the prompt leads to the charge page asking for what is missing, coming back here.
    await buy.click();
    await expect(popup).toContainText(`${won(offer.price)}이 차감됩니다.`);
    await expect(popup).toContainText(`${offer.days}일`);
    await popup.getByRole("button", { name: "확인" }).click();
    await expect(popup).toContainText(`잔액이 부족합니다. (보유 3,000원, 부족 ${won(offer.price - 3000)})`);
    await popup.getByRole("button", { name: "충전하기" }).click();
    await expect(page).toHaveURL(new RegExp(`/payment/recharge\\.asp\\?need=${offer.price - 3000}&return=%2Fjumpingpass$`));
    await expect(page.getByRole("radio", { checked: true })).toHaveText("10,000원");
    await page.getByRole("button", { name: "10,000원 충전하기" }).click();
    await page.getByRole("button", { name: "결제하기" }).click(); // the Toss sandbox's checkout page
    await expect(page.getByTestId("floating-message")).toHaveText("10,000원 충전되었습니다.");
    await expect(page).toHaveURL(/\/jumpingpass$/);

    // Enough now: confirm, and the writer sells one pass.
    const before = await (await page.request.get("/home/api/v1/wallet")).json();
    const have = before.shownAmount + before.blueMileage;
    expect(have).toBeGreaterThanOrEqual(offer.price);
    await buy.click();
    const answered = page.waitForResponse((r) => r.url().endsWith("/home/api/v1/coupons/jumping-pass") && r.request().method() === "POST");
    await popup.getByRole("button", { name: "확인" }).click();
    const res = await answered;
    expect(res.status()).toBe(200);
    expect(res.request().headers()["idempotency-key"]).toMatch(/^[0-9a-f]{32}$/);
    expect(res.request().postDataJSON()).toEqual({});
    const bought = (await res.json()) as { jcpId: number; amount: number; expiresAt: string };
    expect(bought.amount).toBe(offer.price);
    expect(Math.abs(Date.parse(bought.expiresAt) - (Date.now() + offer.days * 86_400_000))).toBeLessThan(10 * 60_000);
    await expect(page.getByTestId("floating-message")).toHaveText("점핑패스를 구매했습니다.");
    const owned = box.getByTestId("jp-owned");
    await expect(owned).toContainText("구매 완료");
    await expect(owned.getByTestId("jp-count")).toHaveText("1장");
    await expect(owned.getByTestId("jp-expiry")).toHaveText([`${kst(bought.expiresAt)}까지`]);
    const after = await (await page.request.get("/home/api/v1/wallet")).json();
    expect(after.shownAmount + after.blueMileage).toBe(have - offer.price);

    // The pass is there on the next visit too.
    await page.reload();
    await expect(owned.getByTestId("jp-count")).toHaveText("1장");
    await expect(owned).not.toContainText("구매 완료");

    // A second pass with what is left: short again, so the charge page asks for the rest.
    const left = have - offer.price;
    expect(left).toBeLessThan(offer.price);
    await buy.click();
    await popup.getByRole("button", { name: "확인" }).click();
    await expect(popup).toContainText(`잔액이 부족합니다. (보유 ${won(left)}, 부족 ${won(offer.price - left)})`);
    await popup.getByRole("button", { name: "충전하기" }).click();
    await expect(page).toHaveURL(new RegExp(`/payment/recharge\\.asp\\?need=${offer.price - left}&return=%2Fjumpingpass$`));
    await expect(page.getByRole("heading", { name: "블루머니 충전" })).toBeVisible();
    // nothing was sold the second time
    const pid = ((await (await request.get("/home/api/v1/jumpingpass")).json()) as { sections: { list: { pid: string }[] }[] }).sections[0].list[0].pid;
    expect((await (await page.request.get(`/home/api/v1/coupons?pid=${pid}`)).json()).PCPInfo.jumpingCount).toBe(1);
  });
});
