/**
 * Deadlines for many requests with one timer. An AbortController and a timer per attempt cost the
 * client as much as the request itself (measured: 2x raw undici), and undici's own headers timeout is
 * coarse (it may fire a second late). Here each attempt gets a tiny abort signal (the EventEmitter
 * form undici accepts: `on`/`once`/`removeListener`), and one interval, running only while something is in
 * flight, fires the overdue ones at most {@link TICK_MS} late.
 */

/** How often the deadlines are checked. */
export const TICK_MS = 20;

/** An abort signal undici accepts, without an AbortController's cost. */
export class DeadlineSignal {
  aborted = false;
  reason: unknown = undefined;
  #listener: (() => void) | undefined;

  once(_event: "abort", listener: () => void): void {
    this.#listener = listener;
  }

  /** undici checks that a signal has `on` (it registers with `once`). */
  on(event: "abort", listener: () => void): void {
    this.once(event, listener);
  }

  removeListener(_event: "abort", listener: () => void): void {
    if (this.#listener === listener) this.#listener = undefined;
  }

  /** Aborts the request it was given to (once). */
  fire(reason: unknown): void {
    if (this.aborted) return;
    this.aborted = true;
    this.reason = reason;
    const listener = this.#listener;
    this.#listener = undefined;
    listener?.();
  }
}

interface Watched {
  deadline: number;
  signal: DeadlineSignal;
  reason: () => unknown;
}

/**
 * Timeouts under this are enforced by our own deadline (to {@link TICK_MS}); longer ones by undici's
 * timers, which may fire up to a second late (under 10% of such a timeout) but cost a request nothing.
 */
export const PRECISE_BELOW_MS = 10_000;

const UNWATCHED = { signal: undefined, clear: () => undefined };

export class Deadlines {
  /**
   * The deadline of an attempt started at `started` (epoch ms): a signal for a timeout under
   * {@link PRECISE_BELOW_MS}, none (undici's own timers apply) for a longer one.
   */
  forAttempt(
    started: number,
    timeoutMs: number,
    reason: () => unknown,
  ): { signal: DeadlineSignal | undefined; clear: () => void } {
    return timeoutMs < PRECISE_BELOW_MS ? this.watch(started + timeoutMs, reason) : UNWATCHED;
  }

  readonly #watched = new Set<Watched>();
  #timer: ReturnType<typeof setInterval> | undefined;

  /** A signal that fires with `reason()` at `deadline` (epoch ms) unless `clear`ed first. */
  watch(deadline: number, reason: () => unknown): { signal: DeadlineSignal; clear: () => void } {
    const entry: Watched = { deadline, signal: new DeadlineSignal(), reason };
    this.#watched.add(entry);
    if (!this.#timer) {
      this.#timer = setInterval(() => this.tick(), TICK_MS);
      this.#timer.unref();
    }
    return { signal: entry.signal, clear: () => this.remove(entry) };
  }

  private remove(entry: Watched): void {
    this.#watched.delete(entry);
    if (this.#watched.size === 0 && this.#timer) {
      clearInterval(this.#timer);
      this.#timer = undefined;
    }
  }

  private tick(): void {
    const now = Date.now();
    for (const entry of this.#watched)
      if (entry.deadline <= now) {
        this.remove(entry);
        entry.signal.fire(entry.reason());
      }
  }
}
