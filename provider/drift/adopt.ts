/**
 * Adopting live rules into a stack without holding any twice: which rules a state holds, each team's
 * explicit provider, names no resource has, and each rule's `pulumi import` line.
 */
import type { HvaRule } from "../client/types";
import { namedRules } from "../resources/hva-automation-rule/names";
import { pendingRecordOf, sameRule } from "../resources/hva-automation-rule/reconcile";
import { PENDING_ID_PREFIX } from "../resources/framework/runtime";
import { ignoredBy, type IgnoreRule, type ManagedResource } from "./state";

/** The type token of a native rule. */
export const HVA_TOKEN = "secops:index:HvaAutomationRule";

const isRule = (r: ManagedResource) => r.kind === "HvaAutomationRule";
const isPending = (r: ManagedResource) => r.id.startsWith(PENDING_ID_PREFIX);

/** An explicit provider of the state, by its resource name and URN. */
export interface StateProvider {
  name: string;
  urn: string;
}

/** A resource's name: the last part of its URN. */
export const nameOf = (urn: string) => urn.split("::").slice(3).join("::") || urn;

/** Whether the state's secops resources go through explicit providers (rather than the default one). */
export const hasExplicitProviders = (resources: readonly ManagedResource[]) =>
  resources.some((r) => r.provider !== undefined);

/** The explicit provider of the state's resources of `teamId` (the first by URN). */
export function providerOfTeam(
  resources: readonly ManagedResource[],
  teamId: string,
): StateProvider | undefined {
  const urns = resources
    .filter((r) => r.teamId === teamId && r.provider !== undefined)
    .map((r) => r.provider!)
    .sort();
  return urns.length ? { name: nameOf(urns[0]), urn: urns[0] } : undefined;
}

/** A live rule as the report lists it. */
export const ruleRow = (rule: HvaRule) => ({
  id: rule.id,
  field: rule.searchField ?? "name",
  search: rule.search ?? "",
  enabled: rule.enabled !== false,
});

/** What sorting live rules needs from the state. */
export interface StateView {
  resources: readonly ManagedResource[];
  ignore: readonly IgnoreRule[];
  /** The team a resource of the state belongs to. */
  teamOf: (r: ManagedResource) => string;
}

/** A live rule left out of an adoption because it copies another: `of` is that one's URN or id. */
export interface Copy {
  rule: HvaRule;
  of: string;
}

/**
 * The live `rules` no resource holds, sorted for adoption: those the ignore file names; `copies` of a
 * rule `teamId`'s resources hold (`of` its URN) and `twins` of another loose rule (`of` the first id):
 * adopting either would declare one rule twice; and the rules to adopt (`kept`).
 */
export function sortLoose(
  rules: readonly HvaRule[],
  { resources, ignore, teamOf }: StateView,
  teamId: string,
): { ignored: Array<{ id: string; reason: string }>; copies: Copy[]; twins: Copy[]; kept: HvaRule[] } {
  const mine = resources.filter(isRule);
  // Held: the state's rules and, for a pending create, every rule its proof (`before`) does not
  // exclude (its settle may delete any of them, so none is offered).
  const held = new Set(mine.filter((r) => !isPending(r)).map((r) => r.id));
  for (const r of mine.filter(isPending)) {
    const before = new Set(pendingRecordOf(r.outputs)?.before ?? []);
    for (const rule of rules)
      if (sameRule(rule, r.outputs as { field: string; search: string }) && !before.has(rule.id))
        held.add(rule.id);
  }
  const managed = mine.filter((r) => teamOf(r) === teamId && !isPending(r));
  const ignored: Array<{ id: string; reason: string }> = [];
  const copies: Copy[] = [];
  const loose: HvaRule[] = [];
  for (const rule of rules.filter((r) => !held.has(r.id))) {
    const reason = ignoredBy(ignore, rule);
    const of = managed.find((r) => sameRule(rule, r.outputs as { field: string; search: string }));
    if (reason !== undefined) ignored.push({ id: rule.id, reason });
    else if (of) copies.push({ rule, of: of.urn });
    else loose.push(rule);
  }
  const first = new Map<string, string>();
  const twins: Copy[] = [];
  for (const rule of [...loose].sort((a, b) => a.id.localeCompare(b.id))) {
    const key = JSON.stringify([rule.searchField ?? "name", rule.search ?? ""]);
    const of = first.get(key);
    if (of === undefined) first.set(key, rule.id);
    else twins.push({ rule, of });
  }
  return { ignored, copies, twins, kept: loose.filter((r) => !twins.some((t) => t.rule === r)) };
}

/** Rules with unique names no resource of the state has, each after `prefix` (a team's, against clashes). */
export function adoptionNames(
  rules: readonly HvaRule[],
  resources: readonly ManagedResource[],
  prefix = "",
): Array<{ name: string; rule: HvaRule }> {
  const taken = new Set(resources.filter(isRule).map((r) => nameOf(r.urn)));
  return namedRules(rules).map(({ name: plain, rule }) => {
    const name = `${prefix}${plain}`;
    let unique = name;
    for (let n = 2; taken.has(unique); n++) unique = `${name}-${n}`;
    taken.add(unique);
    return { name: unique, rule };
  });
}

/** A rule's `pulumi import` line; `--provider` when the state has explicit ones (never the default key). */
export function importLine(
  name: string,
  id: string,
  explicit: boolean,
  provider: StateProvider | undefined,
  teamId: string,
): string {
  const line = `pulumi import ${HVA_TOKEN} ${name} ${id}`;
  if (!explicit) return line;
  if (provider) return `${line} --provider ${provider.name}=${provider.urn}`;
  return `declare a provider for team ${teamId} first (no resource of the state uses one), then: ${line} --provider <its name>=<its urn>`;
}
