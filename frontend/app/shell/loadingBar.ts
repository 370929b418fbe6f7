// The top loading bar (seed §4): starts after 100 ms, climbs in 10% steps
// until above 70%, jumps to 100% at finish and hides 500 ms later.
import { LOADING_BAR } from "./timing";

export type BarState = { visible: boolean; percent: number };
type Timers = { setTimeout: typeof setTimeout; clearTimeout: typeof clearTimeout; setInterval: typeof setInterval; clearInterval: typeof clearInterval };

export class LoadingBar {
  private state: BarState = { visible: false, percent: 0 };
  private delay?: ReturnType<typeof setTimeout>;
  private tick?: ReturnType<typeof setInterval>;
  private hide?: ReturnType<typeof setTimeout>;
  private t: Timers;
  constructor(private onChange: (s: BarState) => void, timers?: Partial<Timers>) {
    this.t = {
      setTimeout: timers?.setTimeout ?? ((...a: Parameters<typeof setTimeout>) => setTimeout(...a)) as typeof setTimeout,
      clearTimeout: timers?.clearTimeout ?? ((id) => clearTimeout(id)) as typeof clearTimeout,
      setInterval: timers?.setInterval ?? ((...a: Parameters<typeof setInterval>) => setInterval(...a)) as typeof setInterval,
      clearInterval: timers?.clearInterval ?? ((id) => clearInterval(id)) as typeof clearInterval,
    };
  }
  private emit(s: BarState) {
    this.state = s;
    this.onChange(s);
  }
  get current() {
    return this.state;
  }
  start() {
    this.stopTimers();
    if (this.delay !== undefined) return;
    this.delay = this.t.setTimeout(() => {
      this.delay = undefined;
      this.emit({ visible: true, percent: LOADING_BAR.stepPercent });
      this.tick = this.t.setInterval(() => {
        if (this.state.percent > LOADING_BAR.stepUntilAbove) {
          this.t.clearInterval(this.tick);
          this.tick = undefined;
          return;
        }
        this.emit({ visible: true, percent: this.state.percent + LOADING_BAR.stepPercent });
      }, LOADING_BAR.tickMs);
    }, LOADING_BAR.delayMs);
  }
  finish() {
    if (this.delay !== undefined) {
      // Finished before the bar appeared: never show it.
      this.t.clearTimeout(this.delay);
      this.delay = undefined;
      return;
    }
    if (!this.state.visible) return;
    this.stopTimers();
    this.emit({ visible: true, percent: 100 });
    this.hide = this.t.setTimeout(() => {
      this.hide = undefined;
      this.emit({ visible: false, percent: 0 });
    }, LOADING_BAR.hideAfterMs);
  }
  private stopTimers() {
    if (this.tick !== undefined) this.t.clearInterval(this.tick);
    if (this.hide !== undefined) this.t.clearTimeout(this.hide);
    this.tick = this.hide = undefined;
  }
  dispose() {
    this.stopTimers();
    if (this.delay !== undefined) this.t.clearTimeout(this.delay);
    this.delay = undefined;
  }
}
