// Spending money from a screen (a volume on the detail page, the jumping pass):
// the reader confirms the amount, the balance is checked, and when it is
// short the reader is offered the charge page with the missing amount and a
// way back. One flow, so every place that spends asks the same way.
import type { Shell } from "~/shell/ShellProvider";
import { getWallet, type Wallet } from "~/utils/storeApi";
import { won } from "~/utils/format";
import { balanceShort } from "./unlock";

/** What can be spent: the writer spends mileage first, then the channel's money (shownAmount). */
export const spendable = (w: Pick<Wallet, "shownAmount" | "blueMileage"> | null | undefined) => (w?.shownAmount ?? 0) + (w?.blueMileage ?? 0);

/**
 * The first-charge bonus the writer grants on amount at pct percent (rounded
 * down to whole won): contract.FirstChargeBonus, run against the same table
 * (contract/cases/money-by-channel.json).
 */
export const firstChargeBonus = (amount: number, pct: number) => Math.floor((amount * pct) / 100);

/** The charge page, asked for the missing amount, coming back to returnTo (a local path). */
export const rechargeHref = (short: number, returnTo: string) => `/payment/recharge.asp?need=${short}&return=${encodeURIComponent(returnTo)}`;

export const shortText = (have: number, short: number) => `잔액이 부족합니다. (보유 ${won(have)}, 부족 ${won(short)})\n충전하시겠습니까?`;

export type SpendDeps = {
  shell: Pick<Shell, "confirm">;
  navigate: (to: string) => void;
  wallet?: () => Promise<Pick<Wallet, "shownAmount" | "blueMileage"> | null>;
};

export type Spend = {
  price: number;
  /** the popup's title: what is bought */
  title: string;
  /** a line under the amount (the term of a pass, ...) */
  note?: string;
  /** where the charge page comes back to */
  returnTo: string;
};

const loadWallet = () => getWallet().catch(() => null);

/**
 * offerCharge checks the balance for price; when it is short it asks whether
 * to charge and, on yes, goes to the charge page. true: the balance is enough.
 */
export async function offerCharge(d: SpendDeps, price: number, returnTo: string): Promise<boolean> {
  const have = spendable(await (d.wallet ?? loadWallet)());
  const short = balanceShort(have, price);
  if (short <= 0) return true;
  const go = await d.shell.confirm({ content: shortText(have, short), leftLabel: "취소", rightLabel: "충전하기" });
  if (go) d.navigate(rechargeHref(short, returnTo));
  return false;
}

/** ensureMoney confirms the spend, then checks the balance (the charge path when short). true: go ahead. */
export async function ensureMoney(d: SpendDeps, s: Spend): Promise<boolean> {
  const content = s.note ? `${won(s.price)}이 차감됩니다.\n${s.note}\n진행할까요?` : `${won(s.price)}이 차감됩니다. 진행할까요?`;
  const ok = await d.shell.confirm({ title: s.title, content, leftLabel: "취소", rightLabel: "확인" });
  if (!ok) return false;
  return offerCharge(d, s.price, s.returnTo);
}
