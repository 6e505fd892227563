/** HvaAutomationRule, declared once (see ../framework/definition.ts): `field` + `search`, enabled or not. */
import { ErrorCodes, SecOpsApiError } from "../../client/errors";
import type { HvaRule } from "../../client/types";
import { defineResource, type InputsOf, type OutputsOf, type ResourceSpec } from "../framework/definition";
import { globRegExp } from "./glob";
import { ruleName } from "./names";

/** The rule resource: what the schema, both SDKs, Check, Diff, import, `List` and drift are made of. */
export const definition = defineResource({
  name: "HvaAutomationRule",
  description:
    "A high-value-asset automation rule: endpoints whose `field` matches `search` are high-value assets.",
  id: "The rule id. Adopt an existing rule with the `import` option or `pulumi import secops:index:HvaAutomationRule <name> <rule id>`.",
  example: `HvaAutomationRule("domain-controllers", { field: "name", search: "dc-*" })`,
  inputs: {
    field: {
      type: "string",
      required: true,
      maxLength: 256,
      replaceOnChange: true,
      description:
        "The field the rule searches: `name` is the value the spec shows; others are passed through. Changing it replaces the rule.",
    },
    search: {
      type: "string",
      required: true,
      maxLength: 4096,
      replaceOnChange: true,
      description: "The search text matched against `field` (e.g. `dc-*`). Changing it replaces the rule.",
    },
    enabled: {
      type: "boolean",
      default: true,
      description: "Whether the rule is enabled. Default true. Changed in place.",
    },
    adoptExisting: {
      type: "boolean",
      default: false,
      description:
        "Take over an existing rule with the same field and search instead of creating a second one. Default false. Needs the (assumed) list route.",
    },
  },
  outputs: {
    field: { type: "string", required: true, api: "searchField", description: "The searched field." },
    search: { type: "string", required: true, description: "The search text." },
    enabled: { type: "boolean", required: true, description: "Whether the rule is enabled." },
    teamId: { type: "string", required: true, description: "The team that owns the rule." },
    disabledAt: {
      type: "string",
      api: false,
      description:
        "When this provider disabled the rule (ISO 8601: set by the create or update that leaves it disabled), kept while it stays disabled; absent while it is enabled. The API records no such time; policy packs read it (secops-disabled-rule-age).",
    },
  },
  read: async (client, id) => {
    const rule = await client.getHvaRule(id);
    if (!rule) throw new SecOpsApiError(ErrorCodes.NOT_FOUND, `HVA rule ${id} not found`);
    return rule;
  },
  list: {
    query: {
      field: { type: "string", description: "Only the rules matching on this field (e.g. `name`)." },
      enabled: { type: "boolean", description: "Only the enabled (true) or the disabled (false) rules." },
      search: {
        type: "string",
        description: "A glob over each rule's search text: `*` any characters, `?` one (`dc-*`).",
      },
    },
    fetch: (client) => client.listHvaRules(),
    nameOf: ruleName,
    matches: (rule, q) =>
      (q.field === undefined || (rule.searchField ?? "name") === q.field) &&
      (q.enabled === undefined || (rule.enabled !== false) === q.enabled) &&
      (q.search === undefined || globRegExp(String(q.search)).test(rule.search ?? "")),
  },
  drift: {
    live: "list",
    unmanaged: true,
    advice: {
      drifted:
        "pulumi up --refresh puts the declared values back (a changed field or search replaces the rule)",
      deleted: "pulumi up --refresh creates it again (a plain up does not see that it is gone)",
    },
  },
} as const satisfies ResourceSpec<HvaRule>);

/** Inputs after check: defaults applied. */
export type HvaRuleInputs = InputsOf<typeof definition>;

/** Outputs stored in state. */
export type HvaRuleOutputs = OutputsOf<typeof definition>;
