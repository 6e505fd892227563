/**
 * Adopting live rules into a stack without holding any twice: which rules a state holds, each team's
 * explicit provider, names no resource has, and each rule's `pulumi import` line.
 */
import type { HvaRule } from "../client/types";
import { namedRules } from "../resources/hva-automation-rule/names";
import { pendingRecordOf, sameRule } from "../resources/hva-automation-rule/reconcile";
import { PENDING_ID_PREFIX } from "../resources/framework/runtime";
import { ignoredBy, type IgnoreRule, type ManagedResource, type StackExport } from "./state";

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
  /** The team's other stacks (`secops drift --state` again): the rules they hold are theirs. */
  others?: readonly StackExport[];
}

/** A live rule left out of an adoption because it copies another: `of` is that one's URN or id. */
export interface Copy {
  rule: HvaRule;
  of: string;
}

/** A live rule another stack holds: `stack` names it, `urn` is its resource there. */
export interface Elsewhere {
  rule: HvaRule;
  stack: string;
  urn: string;
}

/** A rule's identity within its team: its field and search. */
export const identityOf = (r: { field: string; search: string }) => JSON.stringify([r.field, r.search]);

/** A live rule's field and search, as a resource's inputs name them. */
export const ruleInputs = (rule: HvaRule) => ({
  field: rule.searchField ?? "name",
  search: rule.search ?? "",
});

/**
 * The field and search a resource holds: its live rule's when `live` has it (the state may hold the
 * search encrypted, and live is what counts), else its outputs'.
 */
export function heldInputs(r: ManagedResource, live: ReadonlyMap<string, HvaRule>) {
  const rule = live.get(r.id);
  return rule ? ruleInputs(rule) : (r.outputs as { field: string; search: string });
}

/** The ids `resources` hold of `rules`: by id, and for a pending create every rule its proof does not exclude. */
function heldIds(rules: readonly HvaRule[], resources: readonly ManagedResource[]): Set<string> {
  // A pending create's settle may delete any rule its proof (`before`) does not exclude: none is offered.
  const held = new Set(resources.filter((r) => !isPending(r)).map((r) => r.id));
  for (const r of resources.filter(isPending)) {
    const before = new Set(pendingRecordOf(r.outputs)?.before ?? []);
    for (const rule of rules)
      if (sameRule(rule, r.outputs as { field: string; search: string }) && !before.has(rule.id))
        held.add(rule.id);
  }
  return held;
}

/**
 * The live `rules` no resource holds, sorted for adoption: those the ignore file names; `copies` of a
 * rule `teamId`'s resources hold (`of` its URN, in this stack or another) and `twins` of another loose
 * rule (`of` the first id): adopting either would declare one rule twice; and the rules to adopt
 * (`kept`). Rules another stack holds are `elsewhere`: neither loose nor this stack's.
 */
export function sortLoose(
  rules: readonly HvaRule[],
  { resources, ignore, teamOf, others = [] }: StateView,
  teamId: string,
): {
  ignored: Array<{ id: string; reason: string }>;
  copies: Copy[];
  twins: Copy[];
  kept: HvaRule[];
  elsewhere: Elsewhere[];
} {
  const mine = resources.filter(isRule);
  const held = heldIds(rules, mine);
  const elsewhere: Elsewhere[] = [];
  const theirs = others.flatMap((o) => o.resources.filter(isRule).map((r) => ({ r, stack: o.name })));
  const heldThere = heldIds(
    rules,
    theirs.map((t) => t.r),
  );
  for (const rule of rules.filter((r) => !held.has(r.id) && heldThere.has(r.id))) {
    const holder = theirs.find((t) => t.r.id === rule.id);
    if (holder) elsewhere.push({ rule, stack: holder.stack, urn: holder.r.urn });
  }
  const live = new Map(rules.map((r) => [r.id, r]));
  const managed = [...mine, ...theirs.map((t) => t.r)].filter((r) => teamOf(r) === teamId && !isPending(r));
  const ignored: Array<{ id: string; reason: string }> = [];
  const copies: Copy[] = [];
  const loose: HvaRule[] = [];
  for (const rule of rules.filter((r) => !held.has(r.id) && !heldThere.has(r.id))) {
    const reason = ignoredBy(ignore, rule);
    const of = managed.find((r) => identityOf(heldInputs(r, live)) === identityOf(ruleInputs(rule)));
    if (reason !== undefined) ignored.push({ id: rule.id, reason });
    else if (of) copies.push({ rule, of: of.urn });
    else loose.push(rule);
  }
  const first = new Map<string, string>();
  const twins: Copy[] = [];
  for (const rule of [...loose].sort((a, b) => a.id.localeCompare(b.id))) {
    const key = identityOf(ruleInputs(rule));
    const of = first.get(key);
    if (of === undefined) first.set(key, rule.id);
    else twins.push({ rule, of });
  }
  const kept = loose.filter((r) => !twins.some((t) => t.rule === r));
  return { ignored, copies, twins, kept, elsewhere };
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

/** Whether the stack holds a team's objects as dynamic resources (the package root's), all of them. */
export const isDynamicTeam = (
  resources: readonly ManagedResource[],
  teamOf: (r: ManagedResource) => string,
  teamId: string,
) => {
  const mine = resources.filter((r) => teamOf(r) === teamId);
  return mine.length > 0 && mine.every((r) => r.type?.startsWith("pulumi-nodejs:dynamic/") === true);
};

/**
 * How a stack of dynamic resources adopts a rule: the declaration with `adoptExisting: true` (the
 * engine cannot import dynamic resources, and the rule's team is the stack's key's).
 */
export function adoptExistingLine(name: string, rule: HvaRule): string {
  const { field, search } = ruleInputs(rule);
  const args = `field: ${JSON.stringify(field)}, search: ${JSON.stringify(search)}, enabled: ${rule.enabled !== false}`;
  return `new secops.HvaAutomationRule(${JSON.stringify(name)}, { ${args}, adoptExisting: true })`;
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
