/**
 * HvaAutomationRule: a high-value-asset automation rule (`field` + `search`, enabled or not).
 * The file holds the Args, the plain input/output types, the implementation (`provider`, loaded by
 * the serialized shim) and the Resource class.
 */
import * as pulumi from "@pulumi/pulumi";
import type { SecOpsClient } from "../client/client";
import { ErrorCodes, SecOpsError, isSecOpsError } from "../client/errors";
import type { HvaRule } from "../client/types";
import {
  Failures,
  ProviderRuntime,
  explainForbidden,
  isPendingId,
  isUnknown,
  partialFailure,
  warnOnce,
} from "./runtime";
import { RuleListCache } from "./hva-list-cache";
import { claimed, createOnce, identical, listOrExplain, removePendingCreate } from "./hva-reconcile";
import { route, shim, type Implementation } from "./shim";

/** Arguments of {@link HvaAutomationRule}. */
export interface HvaAutomationRuleArgs {
  /** The field the rule searches: `name` is the value the spec shows; others are passed through. Changing it replaces the rule. */
  field: pulumi.Input<string>;
  /** The search text matched against `field` (e.g. `dc-*`). Changing it replaces the rule. */
  search: pulumi.Input<string>;
  /** Whether the rule is enabled. Default true. Changed in place. */
  enabled?: pulumi.Input<boolean>;
  /**
   * Take over an existing rule with the same field and search instead of creating a second one.
   * Default false. Needs the (assumed) list route; see the README's assumptions table.
   */
  adoptExisting?: pulumi.Input<boolean>;
}

/** Inputs after check: defaults applied. */
export interface HvaRuleInputs {
  field: string;
  search: string;
  enabled: boolean;
  adoptExisting: boolean;
  __provider?: string;
}

/** Outputs stored in state. */
export interface HvaRuleOutputs {
  field: string;
  search: string;
  enabled: boolean;
  teamId: string;
}

/** Input names of HvaAutomationRule. */
const HVA_INPUTS = ["field", "search", "enabled", "adoptExisting", "teamId"] as const;
/** Documented input limits (characters): larger values are refused at check, before any request. */
const LIMITS = { field: 256, search: 4096 } as const;

const runtime = new ProviderRuntime();
const listCache = new RuleListCache();

/** Runs a write with the list cache dropped before and after it, so no read returns pre-write data. */
async function writing<T>(write: () => Promise<T>): Promise<T> {
  listCache.invalidate();
  try {
    return await write();
  } finally {
    listCache.invalidate();
  }
}
function outputs(rule: HvaRule, inputs: Pick<HvaRuleInputs, "field" | "search" | "enabled">): HvaRuleOutputs {
  return {
    field: rule.searchField ?? inputs.field,
    search: rule.search ?? inputs.search,
    enabled: rule.enabled ?? inputs.enabled,
    teamId: rule.teamId ?? "",
  };
}

async function ensureEnabled(client: SecOpsClient, rule: HvaRule, inputs: HvaRuleInputs): Promise<HvaRule> {
  if (rule.enabled === inputs.enabled) return rule;
  try {
    return await client.setHvaRuleEnabled(rule.id, inputs.enabled);
  } catch (err) {
    const what = `HVA rule ${rule.id} was created but setting enabled=${inputs.enabled} failed`;
    throw partialFailure(what, rule.id, { ...outputs(rule, inputs) }, inputs as never, err);
  }
}

/** Adopts or creates the rule, then sets `enabled` if the API's default differs. */
async function createRule(
  client: SecOpsClient,
  inputs: HvaRuleInputs,
): Promise<pulumi.dynamic.CreateResult<HvaRuleOutputs>> {
  let rule: HvaRule | undefined;
  if (inputs.adoptExisting) {
    const rules = await listOrExplain(client, "adoptExisting looks for an identical rule");
    rule = rules.find((r) => identical(r, inputs));
  }
  rule ??= await createOnce(client, inputs);
  claimed.add(rule.id);
  rule = await ensureEnabled(client, rule, inputs);
  return { id: rule.id, outs: outputs(rule, inputs) };
}

/** The implementation the shim loads. */
export const provider: Implementation = {
  route: (...args: unknown[]) => route(provider, args),
  configure: (req: pulumi.dynamic.ConfigureRequest) => runtime.configure(req),

  async check(_olds: unknown, news: Record<string, unknown>): Promise<pulumi.dynamic.CheckResult> {
    const f = new Failures();
    if (!f.known(news, "HvaAutomationRule", HVA_INPUTS)) return { inputs: {}, failures: f.list };
    f.string(news, "field");
    f.string(news, "search");
    f.maxLength(news, "field", LIMITS.field);
    f.maxLength(news, "search", LIMITS.search);
    f.optionalBoolean(news, "enabled");
    f.optionalBoolean(news, "adoptExisting");
    const inputs = { ...news, enabled: news.enabled ?? true, adoptExisting: news.adoptExisting ?? false };
    return f.list.length ? { inputs: news, failures: f.list } : { inputs };
  },

  async diff(id: string, olds: HvaRuleOutputs, news: HvaRuleInputs): Promise<pulumi.dynamic.DiffResult> {
    // A pending create is settled by its delete, then created afresh.
    if (isPendingId(id)) return { changes: true, replaces: ["search"], deleteBeforeReplace: true };
    const replaces = (["field", "search"] as const).filter((k) => isUnknown(news[k]) || olds[k] !== news[k]);
    const enabled = news.enabled ?? true;
    const changes = replaces.length > 0 || isUnknown(enabled) || olds.enabled !== enabled;
    return { changes, replaces, deleteBeforeReplace: false };
  },

  async create(inputs: HvaRuleInputs): Promise<pulumi.dynamic.CreateResult<HvaRuleOutputs>> {
    const client = await runtime.client();
    return writing(() => createRule(client, inputs)).catch(async (err: unknown) => {
      throw await explainForbidden(client, err);
    });
  },

  async read(id: string, props: HvaRuleOutputs): Promise<pulumi.dynamic.ReadResult<HvaRuleOutputs>> {
    if (isPendingId(id)) return { id, props }; // kept until the next up or destroy settles it
    const client = await runtime.client();
    const listed = (await listCache.rules(client))?.get(id);
    if (listed) return { id, props: outputs(listed, props) };
    // Not in the list (or no list): a GET tells "deleted" from "not listed".
    let rule: HvaRule | undefined;
    try {
      rule = await client.getHvaRule(id);
    } catch (err) {
      if (!isSecOpsError(err, ErrorCodes.UNSUPPORTED)) throw err;
      warnOnce(
        "hva-read",
        "secops: the API offers no route to read HVA rules; state was kept as it is and drift detection is unavailable for HvaAutomationRule",
      );
      return { id, props };
    }
    if (!rule) return {};
    return { id, props: outputs(rule, props) };
  },

  async update(
    id: string,
    _olds: HvaRuleOutputs,
    news: HvaRuleInputs,
  ): Promise<pulumi.dynamic.UpdateResult<HvaRuleOutputs>> {
    return writing(async () => {
      const client = await runtime.client();
      try {
        const rule = await client.setHvaRuleEnabled(id, news.enabled);
        return { outs: outputs(rule, news) };
      } catch (err) {
        if (!isSecOpsError(err, ErrorCodes.NOT_FOUND)) throw await explainForbidden(client, err);
        throw new SecOpsError(
          ErrorCodes.NOT_FOUND,
          `HVA rule ${id} no longer exists; run \`pulumi refresh\` so the next update recreates it`,
          { cause: err },
        );
      }
    });
  },

  async delete(id: string, props: HvaRuleOutputs): Promise<void> {
    return writing(async () => {
      const client = await runtime.client();
      if (isPendingId(id)) return removePendingCreate(client, props);
      try {
        await client.deleteHvaRule(id);
      } catch (err) {
        if (isSecOpsError(err, ErrorCodes.NOT_FOUND)) return;
        if (!isSecOpsError(err, ErrorCodes.UNSUPPORTED)) throw err;
        await client.setHvaRuleEnabled(id, false).catch((e: unknown) => {
          if (!isSecOpsError(e, ErrorCodes.NOT_FOUND)) throw e;
        });
        warnOnce(
          `hva-delete-${id}`,
          `secops: the API offers no route to delete HVA rules; rule ${id} was disabled, not deleted`,
        );
      } finally {
        claimed.delete(id);
      }
    });
  },
};

/** The serialized provider: loads `provider` from this module by the package's own name. */
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
