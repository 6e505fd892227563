/**
 * Pulumi resource names for existing HVA rules (`secops hva export`, the drift report's import lines):
 * stable (the same rules give the same names) and unique (a repeated name gets -2, -3, ... in id order).
 */
import type { HvaRule } from "../client/types";

/** A Pulumi resource name from a rule: `dc-*` → `dc`, field prefixed when it is not `name`. */
export function ruleName(rule: Pick<HvaRule, "searchField" | "search">): string {
  const field = rule.searchField && rule.searchField !== "name" ? `${rule.searchField}-` : "";
  const slug = `${field}${rule.search ?? ""}`
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, "-")
    .replace(/^-+|-+$/g, "");
  return slug === "" ? "rule" : /^[0-9]/.test(slug) ? `rule-${slug}` : slug;
}

/** Rules with unique names, in id order. */
export function namedRules(rules: readonly HvaRule[]): Array<{ name: string; rule: HvaRule }> {
  const seen = new Map<string, number>();
  return [...rules]
    .sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0))
    .map((rule) => {
      const base = ruleName(rule);
      const n = (seen.get(base) ?? 0) + 1;
      seen.set(base, n);
      return { name: n === 1 ? base : `${base}-${n}`, rule };
    });
}
