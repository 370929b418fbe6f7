// Customer service FAQ categories and their cids (seed §5).
export const FAQ_CATEGORIES = [
  { key: "privacy", label: "회원/개인정보", cid: "01000" },
  { key: "payment", label: "결제/환불", cid: "02000" },
  { key: "comic", label: "만화/웹툰", cid: "03100" },
  { key: "novel", label: "소설", cid: "03300" },
  { key: "etc", label: "기타", cid: "etc" },
] as const;

export function faqCid(category: string | undefined): string | undefined {
  return FAQ_CATEGORIES.find((c) => c.key === category || c.cid === category)?.cid;
}
