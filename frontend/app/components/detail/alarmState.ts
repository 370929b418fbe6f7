/**
 * The alarm button's state. The edge's detail is cached for everyone, so its
 * isAlarm is false for all; the member's own comes with purchases/status.
 * A click's answer (alarm-set) is newer than any status asked before it, so
 * it wins; without either, the detail's value stands (a visitor's page).
 */
export function alarmState(clicked: boolean | null, status: { isAlarm?: boolean } | null | undefined, edge: boolean): boolean {
  return clicked ?? status?.isAlarm ?? edge;
}
