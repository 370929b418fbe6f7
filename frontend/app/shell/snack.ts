// Snack bar and cashback toast (seed §4): if one is showing, it is hidden
// first and the new one shown 350 ms later.
import { FLOATING_MESSAGE_MS, SNACK_SWITCH_MS } from "./timing";

export type SnackKind = "snack" | "cashback";
export type Snack = { id: number; kind: SnackKind; message: string } | null;

export class SnackQueue {
  private showing: Snack = null;
  private seq = 0;
  private switchTimer?: ReturnType<typeof setTimeout>;
  private hideTimer?: ReturnType<typeof setTimeout>;
  constructor(private onChange: (s: Snack) => void) {}
  get current() {
    return this.showing;
  }
  show(kind: SnackKind, message: string, ms = FLOATING_MESSAGE_MS) {
    clearTimeout(this.switchTimer);
    clearTimeout(this.hideTimer);
    const next = { id: ++this.seq, kind, message };
    const reveal = () => {
      this.set(next);
      this.hideTimer = setTimeout(() => this.set(null), ms);
    };
    if (this.showing) {
      this.set(null);
      this.switchTimer = setTimeout(reveal, SNACK_SWITCH_MS);
    } else {
      reveal();
    }
  }
  hide() {
    clearTimeout(this.switchTimer);
    clearTimeout(this.hideTimer);
    this.set(null);
  }
  private set(s: Snack) {
    this.showing = s;
    this.onChange(s);
  }
}
