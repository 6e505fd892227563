/**
 * `pulumi-secops/policy`: the guardrails policy pack (`@pulumi/policy`), run by Pulumi's engine at
 * `preview` and `up` (`--policy-pack`) and on a state file by `pulumi policy analyze`. It works for
 * the native resources (`secops:index:<Name>`) and the dynamic ones
 * (`pulumi-nodejs:dynamic/secops:<Name>`). The package's `policy-pack/` folder is the runnable pack
 * (docs/policy.md): `pulumi preview --policy-pack node_modules/pulumi-secops/policy-pack/pulumi-analyzer-secops`.
 *
 * Importing this module starts nothing; {@link servePolicyPack} serves the pack, and {@link policies}
 * can be put into a pack of one's own.
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
 * Serves the pack: `@pulumi/policy` starts its Analyzer gRPC server and prints the port on stdout's
 * first line, as the engine expects of an analyzer plugin. One pack per process. The pack's version
 * is read from `package.json` in the working directory (`@pulumi/policy` does so): the runnable
 * folder's entry changes to the package's root first.
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
