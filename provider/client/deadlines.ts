/**
 * Deadlines for many requests with one timer. An AbortController and a timer per attempt cost the
 * client as much as the whole request (measured: 2x raw undici), and undici's own headers timeout is
 * coarse (it may fire a second late). Here each waiting request is a set entry; one interval, running
 * only while something waits, fails the overdue ones at most {@link TICK_MS} late.
 */

/** How often the deadlines are checked. */
export const TICK_MS = 20;

interface Waiter {
  deadline: number;
  fail: () => void;
}

export class Deadlines {
  readonly #waiting = new Set<Waiter>();
  #timer: ReturnType<typeof setInterval> | undefined;

  /**
   * Resolves as `work` does, or rejects with `onTimeout()` once `deadline` (epoch ms) has passed.
   * `late` receives what `work` resolves to after the deadline (to release it).
   */
  race<T>(work: Promise<T>, deadline: number, onTimeout: () => Error, late: (value: T) => void): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      let settled = false;
      const waiter: Waiter = {
        deadline,
        fail: () => {
          settled = true;
          reject(onTimeout());
        },
      };
      this.add(waiter);
      work.then(
        (value) => {
          this.remove(waiter);
          if (settled) late(value);
          else resolve(value);
        },
        (err: unknown) => {
          this.remove(waiter);
          if (!settled) reject(err);
        },
      );
    });
  }

  private add(w: Waiter): void {
    this.#waiting.add(w);
    if (this.#timer) return;
    this.#timer = setInterval(() => this.tick(), TICK_MS);
    this.#timer.unref();
  }

  private remove(w: Waiter): void {
    this.#waiting.delete(w);
    if (this.#waiting.size === 0 && this.#timer) {
      clearInterval(this.#timer);
      this.#timer = undefined;
    }
  }

  private tick(): void {
    const now = Date.now();
    for (const w of this.#waiting)
      if (w.deadline <= now) {
        this.remove(w);
        w.fail();
      }
  }
}
