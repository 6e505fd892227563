/**
 * What concurrent calls share about HVA rules: reads served from one short-lived list (a refresh sends
 * one request), with this process's writes applied to it (a write whose outcome is unknown drops it);
 * fresh lists for creates; and one create of a rule at a time.
 */
import type { SecOpsClient } from "../../client/client";
import { shared } from "../../client/cancellation";
import type { HvaRule } from "../../client/types";
import type { HvaRuleOutputs } from "./definition";

/** How long one list serves reads (a refresh's reads arrive as a burst). */
const LIST_WINDOW_MS = 5_000;

/** A write's known effect on the team's rules. */
export type RuleChange = { put: HvaRule } | { remove: string };

/** The team's rules by id, listed at most once per window. */
export class RuleListCache {
  #entry: { at: number; client: SecOpsClient; rules: Promise<Map<string, HvaRule> | undefined> } | undefined;

  /** The rules by id, or undefined when listing failed or has no route: callers then read each rule. */
  rules(client: SecOpsClient): Promise<Map<string, HvaRule> | undefined> {
    const e = this.#entry;
    if (e && e.client === client && Date.now() - e.at <= LIST_WINDOW_MS) return e.rules;
    // Shared by the reads of the window: no one caller's cancellation ends it.
    const rules = shared(() => client.listHvaRules()).then(
      (list) => new Map(list.map((r) => [r.id, r])),
      () => undefined,
    );
    this.#entry = { at: Date.now(), client, rules };
    return rules;
  }

  /**
   * Runs a write and applies its effect to the list (a list in flight gets it on arrival: the effects
   * are idempotent); a failure or an unknown effect (`change` gives undefined) drops the list.
   */
  async writing<T>(
    client: SecOpsClient,
    write: () => Promise<T>,
    change: (result: T) => RuleChange | undefined,
  ): Promise<T> {
    try {
      const result = await write();
      const effect = change(result);
      const e = this.#entry;
      if (!effect) this.#entry = undefined;
      else if (e && e.client === client)
        e.rules = e.rules.then((map) => {
          if (!map) return map;
          if ("put" in effect) map.set(effect.put.id, { ...map.get(effect.put.id), ...effect.put });
          else map.delete(effect.remove);
          return map;
        });
      return result;
    } catch (err) {
      this.#entry = undefined;
      throw err;
    }
  }
}

/** The rule a create or update left (its outputs), as the list would show it. */
export const ruleOf = (id: string, { field, search, enabled, teamId }: HvaRuleOutputs): RuleChange => ({
  put: { id, searchField: field as HvaRule["searchField"], search, enabled, teamId },
});

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
