/**
 * The detail's main button (seed recentViewVol): it continues the volume the
 * member was reading ("이어보기") or opens the first one. The edge's detail
 * gives the first volume (the same for everyone); the member's comes with the
 * writer's purchases/status answer, which the page asks anyway.
 */
export type RecentViewVol = { no: number; isPreView: boolean; isContinue: boolean; needLogin: boolean; title: string };

export type MainButton = { no: number; label: string; continues: boolean };

export function mainButton(member: RecentViewVol | null | undefined, edge: RecentViewVol | null | undefined, unit: string): MainButton | null {
  const rv = member ?? edge;
  if (!rv) return null;
  if (rv.isContinue) return { no: rv.no, label: `${rv.title} 이어보기`, continues: true };
  return { no: rv.no, label: `첫 ${unit === "권" ? "권" : "화"} 보기`, continues: false };
}
