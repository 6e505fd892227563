/**
 * Reads of HVA rules served from one list of the team's rules: a refresh of 1,000 rules sends one
 * list request instead of 1,000 GETs. The list lives for a short window within one provider process
 * and is dropped by the provider's own writes, so a read never returns what this process changed.
 */
import type { SecOpsClient } from "../client/client";
import type { HvaRule } from "../client/types";

/** How long one list serves reads (a refresh's reads arrive as a burst). */
const LIST_WINDOW_MS = 5_000;

/** The team's rules by id, listed at most once per window. */
export class RuleListCache {
  #entry: { at: number; client: SecOpsClient; rules: Promise<Map<string, HvaRule> | undefined> } | undefined;

  constructor(private readonly windowMs = LIST_WINDOW_MS) {}

  /**
   * The rules by id, or undefined when no list is to be had (the route is missing in strict-spec, or
   * listing failed): callers then read each rule on its own, which also tells "deleted" from "not listed".
   */
  rules(client: SecOpsClient): Promise<Map<string, HvaRule> | undefined> {
    const e = this.#entry;
    if (e && e.client === client && Date.now() - e.at <= this.windowMs) return e.rules;
    const rules = client.listHvaRules().then(
      (list) => new Map(list.map((r) => [r.id, r])),
      () => undefined,
    );
    this.#entry = { at: Date.now(), client, rules };
    return rules;
  }

  /** Forgets the list: called around every write of this process. */
  invalidate(): void {
    this.#entry = undefined;
  }
}
