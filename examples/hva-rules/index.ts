/**
 * HVA automation rules from a list. Each entry becomes one rule; removing an entry deletes its rule,
 * changing `search` replaces it, flipping `enabled` updates it in place.
 */
import type * as pulumi from "@pulumi/pulumi";
import { HvaAutomationRule } from "pulumi-secops";

/** The rules this stack owns. */
export const declared = [
  { name: "domain-controllers", search: "dc-*" },
  { name: "production-databases", search: "sql-prod-*" },
  { name: "build-agents", search: "build-*", enabled: false },
];

const rules = declared.map(
  (r) => new HvaAutomationRule(r.name, { field: "name", search: r.search, enabled: r.enabled ?? true }),
);

/** Rule ids by name. */
export const ruleIds: Record<string, pulumi.Output<string>> = Object.fromEntries(
  declared.map((r, i) => [r.name, rules[i].id]),
);
/** Which rules are enabled. */
export const enabled: Record<string, pulumi.Output<boolean>> = Object.fromEntries(
  declared.map((r, i) => [r.name, rules[i].enabled]),
);
