/**
 * Reads of HVA rules served from one short-lived list (a refresh sends one request), with this
 * process's writes applied to it; a write whose outcome is unknown drops it.
 */
import type { SecOpsClient } from "../../client/client";
import { shared } from "../../client/cancellation";
import type { HvaRule } from "../../client/types";

/** How long one list serves reads (a refresh's reads arrive as a burst). */
const LIST_WINDOW_MS = 5_000;

/** A write's known effect on the team's rules. */
export type RuleChange = { put: HvaRule } | { remove: string };

/** The team's rules by id, listed at most once per window. */
export class RuleListCache {
  #entry: { at: number; client: SecOpsClient; rules: Promise<Map<string, HvaRule> | undefined> } | undefined;

  constructor(private readonly windowMs = LIST_WINDOW_MS) {}

  /** The rules by id, or undefined when listing failed or has no route: callers then read each rule. */
  rules(client: SecOpsClient): Promise<Map<string, HvaRule> | undefined> {
    const e = this.#entry;
    if (e && e.client === client && Date.now() - e.at <= this.windowMs) return e.rules;
    // Shared by the reads of the window: no one caller's cancellation ends it.
    const rules = shared(() => client.listHvaRules()).then(
      (list) => new Map(list.map((r) => [r.id, r])),
      () => undefined,
    );
    this.#entry = { at: Date.now(), client, rules };
    return rules;
  }

  /** Applies a write that succeeded; a list in flight gets it on arrival (the effects are idempotent). */
  wrote(client: SecOpsClient, change: RuleChange): void {
    const e = this.#entry;
    if (!e || e.client !== client) return;
    e.rules = e.rules.then((map) => {
      if (!map) return map;
      if ("put" in change) map.set(change.put.id, { ...map.get(change.put.id), ...change.put });
      else map.delete(change.remove);
      return map;
    });
  }

  /** Forgets the list: after a write whose effect is unknown. */
  invalidate(): void {
    this.#entry = undefined;
  }
}

/** Runs a write and applies its effect to the list cache; a failure or unknown effect drops the list. */
export async function writing<T>(
  cache: { lists: RuleListCache; client: SecOpsClient },
  write: () => Promise<T>,
  change: (result: T) => RuleChange | undefined,
): Promise<T> {
  try {
    const result = await write();
    const effect = change(result);
    if (effect) cache.lists.wrote(cache.client, effect);
    else cache.lists.invalidate();
    return result;
  } catch (err) {
    cache.lists.invalidate();
    throw err;
  }
}

/** The rule a create or update left (its outputs), as the list would show it. */
export const ruleOf = (
  id: string,
  outs: { field: string; search: string; enabled: boolean; teamId: string },
): RuleChange => ({
  put: {
    id,
    searchField: outs.field as HvaRule["searchField"],
    search: outs.search,
    enabled: outs.enabled,
    teamId: outs.teamId,
  },
});
