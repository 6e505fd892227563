/**
 * HvaAutomationRule, dynamic front-end: the serialized shim and the `pulumi.dynamic.Resource` class.
 * The implementation is `resources/hva-automation-rule.ts`.
 */
import * as pulumi from "@pulumi/pulumi";
import type { HvaAutomationRuleArgs } from "../resources/hva-automation-rule";
import { shim } from "./shim";

export type { HvaAutomationRuleArgs } from "../resources/hva-automation-rule";

/** The serialized provider: loads the implementation by the package's own name. */
export const hvaAutomationRuleProvider = shim("pulumi-secops/resources/hva-automation-rule");

/**
 * A high-value-asset automation rule. The resource id is the rule id.
 *
 * ```ts
 * new HvaAutomationRule("domain-controllers", { field: "name", search: "dc-*" });
 * ```
 */
export class HvaAutomationRule extends pulumi.dynamic.Resource {
  /** The searched field. */
  declare readonly field: pulumi.Output<string>;
  /** The search text. */
  declare readonly search: pulumi.Output<string>;
  /** Whether the rule is enabled. */
  declare readonly enabled: pulumi.Output<boolean>;
  /** The team that owns the rule. */
  declare readonly teamId: pulumi.Output<string>;

  constructor(name: string, args: HvaAutomationRuleArgs, opts?: pulumi.CustomResourceOptions) {
    // Spread: the base class adds __provider to the props object it is given.
    super(
      hvaAutomationRuleProvider,
      name,
      { ...args, teamId: undefined },
      opts,
      "secops",
      "HvaAutomationRule",
    );
  }
}
