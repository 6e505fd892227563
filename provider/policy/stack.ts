/**
 * What the policies read of what the engine sends, for both front-ends' types, and a resource's team
 * (grouped across providers by the team they show, or by one API key).
 * A value not known yet (a create's `teamId` in preview) throws on access in `@pulumi/policy`:
 * {@link read} gives {@link UNKNOWN} instead, so one unknown value never stops a whole policy.
 */
import { createHash } from "node:crypto";
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
 * How messages name the team of providers whose team the stack does not show yet: native providers
 * by their names; the default ones by where their key comes from.
 */
function providerLabel(providers: readonly PolicyProviderResource[]): string {
  const [p] = providers;
  if (!p) return "the team of an unknown provider";
  if (providers.length > 1)
    return `the team of providers ${listed(providers.map((x) => x.name).sort())} (one API key)`;
  if (p.type === "pulumi:providers:pulumi-nodejs")
    return "the team of the dynamic resources' key (stack config secops:apiKey)";
  if (isDefaultProviderName(p.name)) return "the team of the default secops provider";
  return `the team of provider ${p.name}`;
}

/**
 * Providers joined into groups (union-find over URNs and the keys that join them): a provider is one
 * team with every provider that shows the same team, or that is given the same API key.
 */
class Groups {
  private readonly parent = new Map<string, string>();
  find(x: string): string {
    const p = this.parent.get(x) ?? x;
    if (p === x) return x;
    const root = this.find(p);
    this.parent.set(x, root);
    return root;
  }
  join(a: string, b: string): void {
    const [ra, rb] = [this.find(a), this.find(b)];
    if (ra !== rb) this.parent.set(ra < rb ? rb : ra, ra < rb ? ra : rb);
  }
}

/**
 * A provider's API key input as a digest (the key itself is never kept, compared or shown), or
 * undefined while the engine does not know it (a key computed from another resource in preview).
 */
function keyDigest(p: PolicyProviderResource): string | undefined {
  const key = text(p.props, "apiKey");
  return key ? createHash("sha256").update(key).digest("hex") : undefined;
}

/**
 * The team of each resource: its own `teamId` output, else one its provider carries, else the one its
 * provider's group shows. Providers are grouped by the team their resources show (a provider never
 * changes team) and, where none shows one yet (a provider new in this preview), by their `apiKey`
 * input: one key is one team. Providers no team and no key join are each a team of their own.
 */
export function teamsOf(resources: readonly PolicyResource[]): (r: PolicyResource) => Team {
  const groups = new Groups();
  const providers = new Map<string, PolicyProviderResource>();
  const own = (r: PolicyResource) => text(r.props, "teamId");
  const carried = (r: PolicyResource) => text(r.provider?.props, "teamId");
  for (const r of resources) {
    if (!r.provider) continue;
    const p = r.provider.urn;
    providers.set(p, r.provider);
    const team = [own(r), carried(r)].find(known);
    if (team) groups.join(`provider:${p}`, `team:${team}`);
    const digest = keyDigest(r.provider);
    if (digest) groups.join(`provider:${p}`, `key:${digest}`);
  }
  // Each group's teams: one is the group's team; two (keys once moved between teams) name none.
  const teams = new Map<string, Set<string>>();
  const members = new Map<string, PolicyProviderResource[]>();
  for (const [urn, p] of providers) {
    const root = groups.find(`provider:${urn}`);
    members.set(root, [...(members.get(root) ?? []), p]);
  }
  for (const r of resources) {
    const team = [own(r), carried(r)].find(known);
    if (!team || !r.provider) continue;
    const root = groups.find(`provider:${r.provider.urn}`);
    teams.set(root, (teams.get(root) ?? new Set()).add(team));
  }
  return (r) => {
    const root = r.provider ? groups.find(`provider:${r.provider.urn}`) : "";
    const shown = teams.get(root);
    const team = [own(r), carried(r), shown?.size === 1 ? [...shown][0] : undefined].find(known);
    if (team) return { key: `team:${team}`, label: `team ${team}` };
    // No single team shown: the provider's key group (or the provider alone, where two teams show).
    const group = shown?.size ? [r.provider!] : (members.get(root) ?? (r.provider ? [r.provider] : []));
    const first = group.map((p) => p.urn).sort()[0] ?? "";
    return { key: `provider:${first}`, label: providerLabel(group) };
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
