/** Small concurrency helpers of the resource implementations. */
import { shared } from "../../client/cancellation";

/**
 * Runs tasks with the same key one after another: two creates of one rule never overlap, so a
 * reconciling list never takes the other's rule for a candidate.
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
 * A value loaded after the caller asked (a list showing what existed before a write): callers arriving
 * during a load share the next one, so concurrent creates share one list per round.
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
