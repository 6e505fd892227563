/** HvaAutomationRule, native front-end: `secops:index:HvaAutomationRule`, served by the plugin. */
import * as pulumi from "@pulumi/pulumi";
import type { HvaAutomationRuleArgs } from "../resources/hva-automation-rule";
import { argNames, requireInputs, withDefaults, type ResourceArgsSpec } from "./utilities";

export type { HvaAutomationRuleArgs } from "../resources/hva-automation-rule";

/** The arguments the constructor knows and requires (an unknown name is refused, never dropped). */
const ARGS: ResourceArgsSpec = {
  type: "secops.HvaAutomationRule",
  known: argNames<HvaAutomationRuleArgs>({ field: true, search: true, enabled: true, adoptExisting: true }),
  required: ["field", "search"],
};

/**
 * A high-value-asset automation rule. The resource id is the rule id; adopt an existing rule with the
 * `import` option (`{ import: "<rule id>" }`) or `pulumi import secops:index:HvaAutomationRule <name> <id>`.
 */
export class HvaAutomationRule extends pulumi.CustomResource {
  /** The type token. */
  static readonly __pulumiType = "secops:index:HvaAutomationRule";

  /** Whether `obj` is an HvaAutomationRule (also one made by another copy of this SDK). */
  static override isInstance(obj: unknown): obj is HvaAutomationRule {
    return (obj as { __pulumiType?: string } | null)?.__pulumiType === HvaAutomationRule.__pulumiType;
  }

  /** The searched field. */
  declare readonly field: pulumi.Output<string>;
  /** The search text. */
  declare readonly search: pulumi.Output<string>;
  /** Whether the rule is enabled. */
  declare readonly enabled: pulumi.Output<boolean>;
  /** The team that owns the rule. */
  declare readonly teamId: pulumi.Output<string>;

  /** Looks up an existing rule's state by id (no change is made). */
  static get(
    name: string,
    id: pulumi.Input<pulumi.ID>,
    opts?: pulumi.CustomResourceOptions,
  ): HvaAutomationRule {
    return new HvaAutomationRule(name, undefined as never, { ...opts, id });
  }

  constructor(name: string, args: HvaAutomationRuleArgs, opts: pulumi.CustomResourceOptions = {}) {
    requireInputs(ARGS, name, args, opts);
    const props = opts.id
      ? { field: undefined, search: undefined, enabled: undefined, teamId: undefined }
      : {
          field: args?.field,
          search: args?.search,
          enabled: args?.enabled,
          adoptExisting: args?.adoptExisting,
          teamId: undefined,
        };
    super(HvaAutomationRule.__pulumiType, name, props, withDefaults(opts));
  }
}
