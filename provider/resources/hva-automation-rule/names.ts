/** Resource names for existing rules (`List`, `secops hva export`, the drift report's import lines). */
import type { HvaRule } from "../../client/types";
import { slug, uniquelyNamed } from "../framework/names";

/** A Pulumi resource name from a rule: `dc-*` → `dc`, field prefixed when it is not `name`. */
export function ruleName(rule: Pick<HvaRule, "searchField" | "search">): string {
  const field = rule.searchField && rule.searchField !== "name" ? `${rule.searchField}-` : "";
  return slug(`${field}${rule.search ?? ""}`, "rule");
}

/** Rules with unique names, in id order. */
export function namedRules(rules: readonly HvaRule[]): Array<{ name: string; rule: HvaRule }> {
  return uniquelyNamed(rules, ruleName).map(({ name, item }) => ({ name, rule: item }));
}
