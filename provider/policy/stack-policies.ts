/**
 * The stack-wide policies: they see every resource's outputs at once (the engine's `AnalyzeStack`),
 * which no provider does, so "one live object, one resource" is enforced here across providers too.
 */
import type { PolicyResource, ResourceValidationPolicy, StackValidationPolicy } from "@pulumi/policy";
import { guardrail } from "./meta";
import { RULE_TYPES, USER_TYPES, groupsOf, listed, read, ruleKey, teamsOf, text, type Team } from "./stack";

const rulesOf = (resources: readonly PolicyResource[]) =>
  resources.filter((r) => RULE_TYPES.includes(r.type));
const q = (s: string) => JSON.stringify(s);
const ruleText = (k: { field: string; search: string }) => `(field ${q(k.field)}, search ${q(k.search)})`;

/** A rule's identity in the stack: its team, field and search (undefined while one is not known). */
function ruleIdentity(team: (r: PolicyResource) => Team) {
  return (r: PolicyResource) => {
    const k = ruleKey(r.props);
    return k && JSON.stringify([team(r).key, k.field, k.search]);
  };
}

/** Mandatory: two resources declaring one rule (same team, field and search). */
export const ruleDeclaredOnce = guardrail<StackValidationPolicy>({
  name: "secops-rule-declared-once",
  description: "No two resources of the stack declare the same HVA rule (the same team's field and search).",
  enforcementLevel: "mandatory",
  severity: "high",
  tags: ["hva", "data-safety"],
  specification: "One live object, one resource: a rule is held by one resource of the stack.",
  remediationSteps:
    "Keep one declaration of the rule. If the others are deployed, run `pulumi state delete <urn>` for each before removing it from the program, so that no update deletes the live rule the kept one holds.",
  validateStack: (args, report) => {
    const team = teamsOf(args.resources);
    for (const group of groupsOf(rulesOf(args.resources), ruleIdentity(team))) {
      const k = ruleKey(group[0].props)!;
      report(
        `${listed(group.map((r) => r.name))} declare the same HVA rule ${ruleText(k)} of ${team(group[0]).label}: one API object held by ${group.length} resources, which would change and delete it under each other`,
        group[0].urn,
      );
    }
  },
});

/** Mandatory: two DirectoryUserSettings of one directory user (same team). */
export const userDeclaredOnce = guardrail<StackValidationPolicy>({
  name: "secops-user-declared-once",
  description: "No two resources of the stack declare the settings of the same directory user.",
  enforcementLevel: "mandatory",
  severity: "high",
  tags: ["directory", "data-safety"],
  specification:
    "One live object, one resource: a directory user's settings are held by one resource of the stack.",
  remediationSteps:
    "Merge the declarations into one DirectoryUserSettings per user (each flag set once). If the others are deployed, `pulumi state delete <urn>` them before removing them from the program.",
  validateStack: (args, report) => {
    const team = teamsOf(args.resources);
    const users = args.resources.filter((r) => USER_TYPES.includes(r.type));
    const identity = (r: PolicyResource) => {
      const id = text(r.props, "directoryUserId");
      return id === undefined ? undefined : JSON.stringify([team(r).key, id]);
    };
    for (const group of groupsOf(users, identity)) {
      report(
        `${listed(group.map((r) => r.name))} declare the settings of the same directory user ${q(text(group[0].props, "directoryUserId")!)} of ${team(group[0]).label}: each would write the flags the other sets`,
        group[0].urn,
      );
    }
  },
});

/**
 * The rules whose inputs ask `adoptExisting`, by URN: the stack check's outputs lack that input, so
 * the per-resource half records it (the engine calls `Analyze` before `AnalyzeStack`, in one process).
 */
const adopting = new Map<string, boolean>();

/** Mandatory: `adoptExisting` on a rule that another resource of the stack declares. */
export const adoptUndeclaredOnly = guardrail<
  StackValidationPolicy & Pick<ResourceValidationPolicy, "validateResource">
>({
  name: "secops-adopt-undeclared-only",
  description: "No rule with adoptExisting adopts a rule that another resource of the stack declares.",
  enforcementLevel: "mandatory",
  severity: "high",
  tags: ["hva", "data-safety"],
  specification: "An adoption never holds one object twice: what is adopted is what no resource holds.",
  remediationSteps:
    "Remove adoptExisting from the resource (the other declaration already holds the rule), or remove the other declaration.",
  validateResource: (args) => {
    if (RULE_TYPES.includes(args.type)) adopting.set(args.urn, read(args.props, "adoptExisting") === true);
  },
  validateStack: (args, report) => {
    const team = teamsOf(args.resources);
    const identity = ruleIdentity(team);
    const rules = rulesOf(args.resources);
    for (const r of [...rules].sort((a, b) => (a.urn < b.urn ? -1 : 1))) {
      const id = identity(r);
      if (!id || !(adopting.get(r.urn) ?? read(r.props, "adoptExisting") === true)) continue;
      const others = rules.filter((o) => o !== r && identity(o) === id).map((o) => o.name);
      if (others.length === 0) continue;
      const verb = others.length === 1 ? "declares" : "declare";
      report(
        `${r.name} adopts (adoptExisting) the HVA rule ${ruleText(ruleKey(r.props)!)} of ${team(r).label}, which ${listed(others.sort())} ${verb} too: the adoption would hold a rule another resource holds`,
        r.urn,
      );
    }
  },
});

/** The configuration of {@link disabledRuleAge}. */
export interface DisabledRuleAgeConfig {
  /** The longest a rule may stay disabled, in days. Default 30. */
  maxDisabledDays?: number;
}

const DAY_MS = 86_400_000;

/**
 * Advisory: a rule disabled for longer than `maxDisabledDays`, by its `disabledAt` output; the engine
 * gives a pack no timestamps of its own, so a rule without one is not judged.
 */
export const disabledRuleAge = guardrail<StackValidationPolicy>({
  name: "secops-disabled-rule-age",
  description: "No HVA rule stays disabled for longer than maxDisabledDays (default 30).",
  enforcementLevel: "advisory",
  severity: "low",
  tags: ["hva"],
  specification: "A disabled rule is a decision with an end: enable it again or remove it.",
  remediationSteps:
    "Enable the rule again (enabled: true) or remove it from the program; raise maxDisabledDays in the pack's config if the pause is meant to last.",
  configSchema: { properties: { maxDisabledDays: { type: "integer", minimum: 0, default: 30 } } },
  validateStack: (args, report) => {
    const { maxDisabledDays = 30 } = args.getConfig<DisabledRuleAgeConfig>();
    const now = Date.now();
    for (const r of rulesOf(args.resources)) {
      const since = text(r.props, "disabledAt");
      const at = since === undefined ? NaN : Date.parse(since);
      if (read(r.props, "enabled") !== false || Number.isNaN(at)) continue;
      const days = Math.floor((now - at) / DAY_MS);
      if (days > maxDisabledDays)
        report(
          `${r.name} has been disabled since ${since} (${days} days, more than ${maxDisabledDays}): its assets are not marked high-value while it stays so`,
          r.urn,
        );
    }
  },
});

/** The configuration of {@link rulesPerTeam}. */
export interface RulesPerTeamConfig {
  /** The most rules one team may have in the stack. Default 100. */
  maxRulesPerTeam?: number;
}

/** Advisory: more rules of one team in the stack than `maxRulesPerTeam`. */
export const rulesPerTeam = guardrail<StackValidationPolicy>({
  name: "secops-rules-per-team",
  description: "A team has at most maxRulesPerTeam (default 100) HVA rules in the stack.",
  enforcementLevel: "advisory",
  severity: "low",
  tags: ["hva"],
  specification: "A team's rules stay few enough to review: broad patterns over one rule per asset.",
  remediationSteps:
    "Merge rules into broader patterns (`sql-*` over one rule per server), or raise maxRulesPerTeam in the pack's config.",
  configSchema: { properties: { maxRulesPerTeam: { type: "integer", minimum: 0, default: 100 } } },
  validateStack: (args, report) => {
    const { maxRulesPerTeam = 100 } = args.getConfig<RulesPerTeamConfig>();
    const team = teamsOf(args.resources);
    for (const rules of groupsOf(rulesOf(args.resources), (r) => team(r).key, maxRulesPerTeam + 1)) {
      const label = team(rules[0]).label;
      report(
        `${rules.length} HVA rules of ${label} are declared in this stack, more than ${maxRulesPerTeam}`,
      );
    }
  },
});
