/**
 * What the policies read of what the engine sends, for both front-ends' types, and a resource's team.
 * A value not known yet (a create's `teamId` in preview) throws on access in `@pulumi/policy`:
 * {@link read} gives {@link UNKNOWN} instead, so one unknown value never stops a whole policy.
 */
import type { PolicyProviderResource, PolicyResource } from "@pulumi/policy";
import { dynamicType } from "../resources/framework/definition";
import { isDefaultProviderName } from "../resources/framework/names";
import { definition as ruleDefinition } from "../resources/hva-automation-rule";
import { definition as userDefinition } from "../resources/directory-user-settings";

/** Stands for a value the engine does not know yet (during preview). */
export const UNKNOWN = Symbol("unknown");

/** The type tokens of HvaAutomationRule: native, then dynamic. */
export const RULE_TYPES: readonly string[] = [ruleDefinition.token, dynamicType(ruleDefinition)];
/** The type tokens of DirectoryUserSettings: native, then dynamic. */
export const USER_TYPES: readonly string[] = [userDefinition.token, dynamicType(userDefinition)];
/** The longest `search` the provider sends (its definition's limit, refused at check too). */
export const SEARCH_MAX_LENGTH = ruleDefinition.inputs.search.maxLength as number;

/** A property of what the engine sent, or {@link UNKNOWN} (the `@pulumi/policy` proxy throws on those). */
export function read(props: Record<string, unknown> | undefined, key: string): unknown {
  try {
    return props?.[key];
  } catch {
    return UNKNOWN;
  }
}

/** A property that is a known string, else undefined. */
export function text(props: Record<string, unknown> | undefined, key: string): string | undefined {
  const v = read(props, key);
  return typeof v === "string" ? v : undefined;
}

/** A rule's identity within a team: its field and its search, both known. */
export function ruleKey(props: Record<string, unknown>): { field: string; search: string } | undefined {
  const field = text(props, "field");
  const search = text(props, "search");
  return field === undefined || search === undefined ? undefined : { field, search };
}

/** A resource's team, as far as what the engine sent tells it. */
export interface Team {
  /** Equal for two resources of one team. */
  key: string;
  /** How messages name it: `team team-acme`, or the provider whose team it is. */
  label: string;
}

const known = (v: string | undefined): v is string => v !== undefined && v !== "";

/**
 * How messages name the team of a provider whose team the stack does not show yet: a native
 * provider by its name; the default ones by where their key comes from.
 */
function providerLabel(p: PolicyProviderResource | undefined): string {
  if (!p) return "the team of an unknown provider";
  if (p.type === "pulumi:providers:pulumi-nodejs")
    return "the team of the dynamic resources' key (stack config secops:apiKey)";
  if (isDefaultProviderName(p.name)) return "the team of the default secops provider";
  return `the team of provider ${p.name}`;
}

/**
 * The team of each resource: its own `teamId` output, else one its provider carries, else one another
 * resource of that provider shows (a provider never changes team), else the provider itself. Two
 * providers are one team only by a team they show, never by comparing keys.
 */
export function teamsOf(resources: readonly PolicyResource[]): (r: PolicyResource) => Team {
  const byProvider = new Map<string, string>();
  const own = (r: PolicyResource) => text(r.props, "teamId");
  const carried = (r: PolicyResource) => text(r.provider?.props, "teamId");
  for (const r of resources) {
    const team = [own(r), carried(r)].find(known);
    if (team && r.provider && !byProvider.has(r.provider.urn)) byProvider.set(r.provider.urn, team);
  }
  return (r) => {
    const team = [own(r), carried(r), r.provider ? byProvider.get(r.provider.urn) : undefined].find(known);
    if (team) return { key: `team:${team}`, label: `team ${team}` };
    return { key: `provider:${r.provider?.urn ?? ""}`, label: providerLabel(r.provider) };
  };
}

/** Groups items by a key (none: skipped), keeping groups of at least `atLeast`, each by URN, in key order. */
export function groupsOf<T extends { urn: string }>(
  items: readonly T[],
  keyOf: (t: T) => string | undefined,
  atLeast = 2,
) {
  const groups = new Map<string, T[]>();
  for (const item of items) {
    const key = keyOf(item);
    if (key === undefined) continue;
    groups.set(key, [...(groups.get(key) ?? []), item]);
  }
  return [...groups.entries()]
    .filter(([, g]) => g.length >= atLeast)
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    .map(([, g]) => [...g].sort((a, b) => (a.urn < b.urn ? -1 : a.urn > b.urn ? 1 : 0)));
}

/** Names as a list: `a and b`, `a, b and c` (British English: no comma before `and`). */
export const listed = (names: readonly string[]): string =>
  new Intl.ListFormat("en-GB", { type: "conjunction" }).format(names);
