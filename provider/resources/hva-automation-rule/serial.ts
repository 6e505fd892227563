/** Small concurrency helpers of the resource implementations. */
import { shared } from "../../client/cancellation";

/**
 * Runs tasks with the same key one after another (different keys run side by side). Two creates of
 * the same rule never overlap, so a reconciling list never sees another create's rule as a candidate.
 */
export class KeyedLock {
  readonly #tails = new Map<string, Promise<unknown>>();

  run<T>(key: string, task: () => Promise<T>): Promise<T> {
    const prev = this.#tails.get(key) ?? Promise.resolve();
    const next = prev.then(task, task);
    const tail = next.catch(() => undefined);
    this.#tails.set(key, tail);
    void tail.then(() => {
      if (this.#tails.get(key) === tail) this.#tails.delete(key);
    });
    return next;
  }
}

/**
 * A value that must be loaded after the caller asked for it (a list that shows what existed before a
 * write): callers that arrive while a load is in flight share the next load, never the current one,
 * so concurrent creates share one list per round instead of one each.
 */
export class FreshLoad<T> {
  #inflight: Promise<T> | undefined;
  #next: Promise<T> | undefined;

  constructor(private readonly load: () => Promise<T>) {}

  get(): Promise<T> {
    if (!this.#inflight) return this.start();
    this.#next ??= this.#inflight
      .catch(() => undefined)
      .then(() => {
        this.#next = undefined;
        return this.start();
      });
    return this.#next;
  }

  private start(): Promise<T> {
    // Shared by every caller that arrives meanwhile: no one caller's cancellation ends it.
    const p = shared(() => this.load());
    this.#inflight = p;
    const done = () => {
      if (this.#inflight === p) this.#inflight = undefined;
    };
    p.then(done, done);
    return p;
  }
}
