/**
 * Adopting live rules into a stack without holding any twice (issue 32 point 4): which rules a state
 * already holds, the explicit provider of each team in it, names that no resource of the state has,
 * and the `pulumi import` line for a rule (with `--provider <name>=<urn>` when the state has
 * explicit providers, as `pulumi import` takes it).
 */
import type { SecOpsClient } from "../client/client";
import type { HvaRule } from "../client/types";
import { listObjects } from "../resources/framework/listing";
import { namedRules } from "../resources/hva-automation-rule/names";
import { pendingRecordOf, sameRule } from "../resources/hva-automation-rule/reconcile";
import { PENDING_ID_PREFIX } from "../resources/framework/runtime";
import type { ManagedResource } from "./state";

/** The type token of a native rule. */
export const HVA_TOKEN = "secops:index:HvaAutomationRule";

/**
 * Every live HVA rule the client's key can see (its team's), in id order: the listing that serves the
 * plugin's `List` RPC (resources/framework/listing.ts), so drift, export and `List` find the same rules.
 */
export async function listRules(client: SecOpsClient): Promise<HvaRule[]> {
  return (await listObjects<HvaRule>(client, HVA_TOKEN)).map((o) => o.item);
}

/** An explicit provider of the state, by its resource name and URN. */
export interface StateProvider {
  name: string;
  urn: string;
}

/** A resource's name: the last part of its URN. */
export const nameOf = (urn: string) => urn.split("::").slice(3).join("::") || urn;

/**
 * The ids of the live `rules` that the state's resources hold (either front-end's): their own ids,
 * and for a create whose outcome was unknown (a pending id), every rule of its field and search that
 * its proof (the rules that existed before its PUT) does not exclude: one of them may be the rule it
 * made, which its next up or destroy settles. None of them is offered for adoption, so an adopted
 * rule is never also deleted by that settling.
 */
export function heldRuleIds(resources: readonly ManagedResource[], rules: readonly HvaRule[]): Set<string> {
  const mine = resources.filter((r) => r.kind === "HvaAutomationRule");
  const held = new Set(mine.filter((r) => !r.id.startsWith(PENDING_ID_PREFIX)).map((r) => r.id));
  for (const r of mine.filter((m) => m.id.startsWith(PENDING_ID_PREFIX))) {
    const before = new Set(pendingRecordOf(r.outputs)?.before ?? []);
    for (const rule of rules)
      if (sameRule(rule, r.outputs as { field: string; search: string }) && !before.has(rule.id))
        held.add(rule.id);
  }
  return held;
}

/** Whether the state's secops resources go through explicit providers (rather than the default one). */
export const hasExplicitProviders = (resources: readonly ManagedResource[]) =>
  resources.some((r) => r.provider !== undefined);

/**
 * The explicit provider through which the state manages `teamId`'s objects (the first by URN when there
 * are several): the team is the one its resources recorded.
 */
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

/**
 * Live rules no resource holds that have the field and search of a rule a resource of `team` holds:
 * copies of managed rules (by hand, or a second create), by id, with the URN of the managed one.
 * Adopting one would make two resources declare one rule: the advice is to delete it, or to keep it
 * deliberately in the ignore file.
 */
export function copiesOf(
  rules: readonly HvaRule[],
  resources: readonly ManagedResource[],
  held: ReadonlySet<string>,
  team: (r: ManagedResource) => string,
  teamId: string,
): Map<string, string> {
  const managed = resources.filter(
    (r) => r.kind === "HvaAutomationRule" && team(r) === teamId && !r.id.startsWith(PENDING_ID_PREFIX),
  );
  const copies = new Map<string, string>();
  for (const rule of rules) {
    if (held.has(rule.id)) continue;
    const of = managed.find((r) => sameRule(rule, r.outputs as { field: string; search: string }));
    if (of) copies.set(rule.id, of.urn);
  }
  return copies;
}

/**
 * Of live rules no resource holds, the first (in id order) of each field and search, and the others
 * as copies of it (by id, the id of the one kept): adopting two identical rules would make two
 * resources declare one rule, which the provider's Check refuses.
 */
export function firstOfEach(rules: readonly HvaRule[]): { kept: HvaRule[]; copies: Map<string, string> } {
  const first = new Map<string, string>();
  const kept: HvaRule[] = [];
  const copies = new Map<string, string>();
  for (const rule of [...rules].sort((a, b) => a.id.localeCompare(b.id))) {
    const key = JSON.stringify([rule.searchField ?? "name", rule.search ?? ""]);
    const of = first.get(key);
    if (of === undefined) {
      first.set(key, rule.id);
      kept.push(rule);
    } else copies.set(rule.id, of);
  }
  return { kept: rules.filter((r) => kept.includes(r)), copies };
}

/**
 * Rules with unique names (see `namedRules`) that no rule resource of the state already has, each
 * after `prefix` (the team, when two teams' adoptions would otherwise give one name twice).
 */
export function adoptionNames(
  rules: readonly HvaRule[],
  resources: readonly ManagedResource[],
  prefix = "",
): Array<{ name: string; rule: HvaRule }> {
  const taken = new Set(resources.filter((r) => r.kind === "HvaAutomationRule").map((r) => nameOf(r.urn)));
  return namedRules(rules).map(({ name: plain, rule }) => {
    const name = `${prefix}${plain}`;
    let unique = name;
    for (let n = 2; taken.has(unique); n++) unique = `${name}-${n}`;
    taken.add(unique);
    return { name: unique, rule };
  });
}

/**
 * The `pulumi import` line of one rule: `--provider <name>=<urn>` when the state has explicit
 * providers (a line without it would adopt the rule through the default provider's key).
 */
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
