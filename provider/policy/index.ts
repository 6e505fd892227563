/**
 * `pulumi-secops/policy`: the guardrails policy pack (`@pulumi/policy`) over native and dynamic
 * resources; the package's `policy-pack/` folder is the runnable pack (docs/policy.md). Importing this
 * starts nothing: {@link servePolicyPack} serves the pack; {@link policies} fit into a pack of one's own.
 */
import { PolicyPack, type Policies } from "@pulumi/policy";
import { PACK_NAME } from "./meta";
import {
  credentialsExposedKept,
  fieldKnown,
  searchNotEverything,
  searchWithinLimit,
} from "./resource-policies";
import {
  adoptUndeclaredOnly,
  disabledRuleAge,
  ruleDeclaredOnce,
  rulesPerTeam,
  userDeclaredOnce,
} from "./stack-policies";

export { PACK_NAME } from "./meta";
export type { FieldKnownConfig } from "./resource-policies";
export type { DisabledRuleAgeConfig, RulesPerTeamConfig } from "./stack-policies";

/** Every policy of the pack: the mandatory ones first, then the advisory ones. */
export const policies: Policies = [
  ruleDeclaredOnce,
  userDeclaredOnce,
  adoptUndeclaredOnly,
  searchNotEverything,
  searchWithinLimit,
  fieldKnown,
  disabledRuleAge,
  credentialsExposedKept,
  rulesPerTeam,
];

/**
 * Serves the pack (`@pulumi/policy`'s Analyzer server; one pack per process). Its version is read from
 * `package.json` in the working directory, so the runnable folder's entry changes to the package root.
 */
export function servePolicyPack(): PolicyPack {
  return new PolicyPack(PACK_NAME, {
    description:
      "Guardrails for pulumi-secops: one resource per HVA rule and directory user, no rule matching every endpoint, and advisories on disabled rules, cleared credential marks and rule counts.",
    enforcementLevel: "advisory",
    tags: ["secops", "hva", "directory"],
    policies,
  });
}
