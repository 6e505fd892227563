/**
 * HvaAutomationRule's implementation: a high-value-asset automation rule (`field` + `search`,
 * enabled or not). Typed inputs and outputs, check, diff and CRUD against SecOpsClient, shared by
 * both front-ends (`dynamic/` and `native/`). `provider` is what the dynamic shim loads.
 */
import type * as pulumi from "@pulumi/pulumi";
import type { SecOpsClient } from "../../client/client";
import { ErrorCodes, SecOpsApiError, SecOpsInputError, isSecOpsError } from "../../client/errors";
import type { HvaRule } from "../../client/types";
import type { ResourceContext, ResourceImplementation } from "../framework/context";
import { checkInputs, replacedBy, type ResourceDefinition } from "../framework/definition";
import { globRegExp } from "./glob";
import { ruleName } from "./names";
import {
  assertTeam,
  cannotImport,
  definedOnly,
  explainForbidden,
  isPendingId,
  isUnknown,
  teamOf,
} from "../framework/runtime";
import { dynamicImplementation } from "../framework/shim-target";
import { RuleListCache, ruleOf, writing, type RuleChange } from "./list-cache";
import { createRule, outputs } from "./create";
import { held, removePendingCreate } from "./settle";
import { intentJournal } from "./intents";
import { FreshLoad, KeyedLock } from "./serial";
import { Declarations, declaredOnce } from "../framework/declarations";
import type { HvaRuleInputs, HvaRuleOutputs } from "./types";

export type { HvaRuleInputs, HvaRuleOutputs } from "./types";

/** HvaAutomationRule, declared once (see ./definition.ts for what is made of it). */
export const definition: ResourceDefinition<HvaRule> = {
  name: "HvaAutomationRule",
  token: "secops:index:HvaAutomationRule",
  module: "hva-automation-rule",
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
    field: { type: "string", required: true, description: "The searched field." },
    search: { type: "string", required: true, description: "The search text." },
    enabled: { type: "boolean", required: true, description: "Whether the rule is enabled." },
    teamId: { type: "string", required: true, description: "The team that owns the rule." },
    disabledAt: {
      type: "string",
      description:
        "When this provider disabled the rule (ISO 8601: set by the create or update that leaves it disabled), kept while it stays disabled; absent while it is enabled. The API records no such time; policy packs read it (secops-disabled-rule-age).",
    },
  },
  importInputs: (o) => definedOnly({ field: o.field, search: o.search, enabled: o.enabled }),
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
    fields: { field: (r) => r.searchField, search: (r) => r.search, enabled: (r) => r.enabled },
    unmanaged: true,
    advice: {
      drifted:
        "pulumi up --refresh puts the declared values back (a changed field or search replaces the rule)",
      deleted: "pulumi up --refresh creates it again (a plain up does not see that it is gone)",
    },
  },
};

/**
 * The outputs with `disabledAt`: kept from `before` while the rule stays disabled, absent while it is
 * enabled; a create or update that leaves it disabled (`wrote`) records now when it was not disabled
 * before. A refresh records nothing new: a rule disabled by hand is drift, not a decision to date.
 */
function disabledSince(
  outs: HvaRuleOutputs,
  before: HvaRuleOutputs | undefined,
  wrote: boolean,
): HvaRuleOutputs {
  const { disabledAt: _, ...rest } = outs;
  if (outs.enabled !== false) return rest;
  const kept = before?.enabled === false ? before.disabledAt : undefined;
  const since = kept ?? (wrote ? new Date().toISOString() : undefined);
  return since === undefined ? rest : { ...rest, disabledAt: since };
}

/** What identifies the rule a resource declares. */
const ruleKey = (field: string, search: string) => JSON.stringify([field, search]);

/** Why a second resource declaring one rule is refused. */
export const duplicateRuleReason = (other: string, field: string, search: string) =>
  `the rule with field ${JSON.stringify(field)} and search ${JSON.stringify(search)} is already declared ` +
  `by ${other} under the same secops provider: a rule held by two resources is deleted under one of ` +
  "them when the other goes. Declare each rule once (a renamed resource keeps its rule with the " +
  "aliases option: aliases: [its old URN])";

/** Checks inputs without network: one failure per problem, named by property. */
export async function checkHvaRule(news: unknown): Promise<pulumi.dynamic.CheckResult<HvaRuleInputs>> {
  const { inputs, failures } = checkInputs(definition, news);
  return failures.length
    ? { inputs: inputs as unknown as HvaRuleInputs, failures }
    : { inputs: inputs as unknown as HvaRuleInputs };
}

/**
 * The implementation for one provider instance: its list cache and its record of claimed rules are
 * its own, so two teams' instances in one process never see each other's rules.
 */
export class HvaAutomationRuleImpl implements ResourceImplementation<HvaRuleInputs, HvaRuleOutputs> {
  readonly #listCache = new RuleListCache();
  /** Rules this instance created or adopted, so two resources never claim one rule. */
  readonly #claimed = new Set<string>();
  /**
   * Rules a create adopted or an import read in this run, with the URN of the resource that took each
   * over (where the front-end tells it): another resource's delete leaves them. The engine starts the
   * provider afresh for each run, and in one run a resource never deletes the rule it took over.
   */
  readonly #takenOver = new Map<string, string | undefined>();
  /** Which resource declares which rule (field and search) in this run. */
  readonly #declared = new Declarations();
  /** Creates of the same rule (field and search) run one at a time. */
  readonly #creating = new KeyedLock();
  readonly #lists = new WeakMap<SecOpsClient, FreshLoad<HvaRule[]>>();

  constructor(private readonly ctx: ResourceContext) {}

  /** Checks the inputs; a second resource of this provider declaring the same rule is refused. */
  async check(
    _olds: unknown,
    news: unknown,
    urn = this.ctx.urn?.(),
  ): Promise<pulumi.dynamic.CheckResult<HvaRuleInputs>> {
    const checked = await checkHvaRule(news);
    const { field, search } = checked.inputs ?? {};
    const known =
      typeof field === "string" && typeof search === "string" && !isUnknown(field) && !isUnknown(search);
    const key = known ? ruleKey(field, search) : undefined;
    const refused = declaredOnce(this.#declared, key, urn, checked.failures, (other) => ({
      property: "search",
      reason: duplicateRuleReason(other, field!, search!),
    }));
    return refused ? { ...checked, failures: refused } : checked;
  }

  async diff(id: string, olds: HvaRuleOutputs, news: HvaRuleInputs): Promise<pulumi.dynamic.DiffResult> {
    await this.sameTeamIfKnown(id, olds);
    held(olds?.teamId, id, olds);
    // A pending create is settled by its delete, then created afresh.
    if (isPendingId(id)) return { changes: true, replaces: ["search"], deleteBeforeReplace: true };
    const replaces = replacedBy(definition, olds as never, news as never);
    const enabled = news.enabled ?? true;
    const changes = replaces.length > 0 || isUnknown(enabled) || olds.enabled !== enabled;
    return { changes, replaces, deleteBeforeReplace: false };
  }

  async create(inputs: HvaRuleInputs): Promise<pulumi.dynamic.CreateResult<HvaRuleOutputs>> {
    const client = await this.ctx.client();
    let lists = this.#lists.get(client);
    if (!lists) this.#lists.set(client, (lists = new FreshLoad(() => client.listHvaRules())));
    const warn = (k: string, m: string) => this.ctx.warn(k, m);
    const urn = this.ctx.urn?.();
    const adopted = {
      add: (id: string, team: string) => {
        this.#takenOver.set(id, urn);
        intentJournal().markTakenOver(team, id);
      },
    };
    const c = { client, claimed: this.#claimed, adopted, lists, warn, urn };
    const key = ruleKey(inputs.field, inputs.search);
    const other = this.#declared.contender(key, urn);
    if (other) throw new SecOpsInputError("search", duplicateRuleReason(other, inputs.field, inputs.search));
    const made = await this.#creating
      .run(key, () =>
        writing(
          { lists: this.#listCache, client },
          () => createRule(c, inputs),
          (r) => ruleOf(r.id, r.outs!),
        ),
      )
      .catch(async (err: unknown) => {
        throw await explainForbidden(client, err);
      });
    return { ...made, outs: made.outs && disabledSince(made.outs, undefined, true) };
  }

  /** Refresh (with the last outputs) or import (`props` undefined: the id is all there is). */
  async read(id: string, props?: HvaRuleOutputs): Promise<pulumi.dynamic.ReadResult<HvaRuleOutputs>> {
    if (isPendingId(id)) return { id, props }; // kept until the next up or destroy settles it
    const client = await this.ctx.client();
    await assertTeam(client, props?.teamId, `HVA rule ${id}`);
    held(props?.teamId, id, props);
    if (!props) {
      // An import: see #takenOver (and, for another provider's process, the journal's mark).
      this.#takenOver.set(id, this.ctx.urn?.());
      intentJournal().markTakenOver(await teamOf(client), id);
    }
    const listed = (await this.#listCache.rules(client))?.get(id);
    if (listed)
      return {
        id,
        props: disabledSince(
          outputs(listed, props ?? { field: "", search: "", enabled: true }),
          props,
          false,
        ),
      };
    // Not in the list (or no list): a GET tells "deleted" from "not listed".
    let rule: HvaRule | undefined;
    try {
      rule = await client.getHvaRule(id);
    } catch (err) {
      if (!isSecOpsError(err, ErrorCodes.UNSUPPORTED)) throw err;
      if (!props) throw cannotImport(`HVA rule ${id}`, err);
      this.ctx.warn(
        "hva-read",
        "secops: the API offers no route to read HVA rules; state was kept as it is and drift detection is unavailable for HvaAutomationRule",
      );
      return { id, props };
    }
    if (!rule) return {};
    return {
      id,
      props: disabledSince(outputs(rule, props ?? { field: "", search: "", enabled: true }), props, false),
    };
  }

  async update(
    id: string,
    olds: HvaRuleOutputs,
    news: HvaRuleInputs,
  ): Promise<pulumi.dynamic.UpdateResult<HvaRuleOutputs>> {
    const client = await this.ctx.client();
    await assertTeam(client, olds?.teamId, `HVA rule ${id}`);
    held(olds?.teamId, id, olds);
    const cache = { lists: this.#listCache, client };
    return writing(
      cache,
      async () => {
        try {
          const rule = await client.setHvaRuleEnabled(id, news.enabled);
          return { outs: disabledSince(outputs(rule, news), olds, true) };
        } catch (err) {
          if (!isSecOpsError(err, ErrorCodes.NOT_FOUND)) throw await explainForbidden(client, err);
          throw new SecOpsApiError(
            ErrorCodes.NOT_FOUND,
            `HVA rule ${id} no longer exists; run \`pulumi refresh\` so the next update recreates it`,
            { cause: err },
          );
        }
      },
      (r) => ruleOf(id, r.outs!),
    );
  }

  async delete(id: string, props: HvaRuleOutputs): Promise<void> {
    const client = await this.ctx.client();
    await assertTeam(client, props?.teamId, `HVA rule ${id}`);
    // Known effect: the rule is gone (deleted, or already gone); a pending create's settlement or a
    // rule disabled for want of a delete route drops the list instead.
    await writing(
      { lists: this.#listCache, client },
      () => this.remove(client, id, props),
      (removed): RuleChange | undefined => (removed ? { remove: id } : undefined),
    );
  }

  /** Deletes the rule; true when it is known to be gone from the list. */
  private async remove(client: SecOpsClient, id: string, props: HvaRuleOutputs): Promise<boolean> {
    if (isPendingId(id)) {
      const team = await teamOf(client);
      const key = JSON.stringify([props.field, props.search]);
      const urn = this.ctx.urn?.();
      const settle = () =>
        removePendingCreate(client, intentJournal(), team, id, props as never, this.#claimed, urn);
      await this.#creating.run(key, settle);
      return false;
    }
    held(props?.teamId, id, props);
    const here = this.#takenOver.has(id) && (this.#takenOver.get(id) ?? "") !== (this.ctx.urn?.() ?? "-");
    const elsewhere =
      !this.#takenOver.has(id) && intentJournal().takenOverElsewhere(await teamOf(client), id);
    if (here || elsewhere) {
      this.ctx.warn(
        `hva-kept-${id}`,
        `secops: HVA rule ${id} was not deleted: another resource of this stack took it over in this run (adoptExisting or import) and holds it now; only this resource left the stack`,
      );
      return false;
    }
    // The claim is given up only once the rule is gone (or left disabled): a delete that failed keeps
    // it, so no adoption in this instance takes a rule a resource still holds.
    const released = <T>(result: T): T => (this.#claimed.delete(id), result);
    try {
      await client.deleteHvaRule(id);
      return released(true);
    } catch (err) {
      if (isSecOpsError(err, ErrorCodes.NOT_FOUND)) return released(true);
      if (!isSecOpsError(err, ErrorCodes.UNSUPPORTED)) throw err;
      await client.setHvaRuleEnabled(id, false).catch((e: unknown) => {
        if (!isSecOpsError(e, ErrorCodes.NOT_FOUND)) throw e;
      });
      this.ctx.warn(
        `hva-delete-${id}`,
        `secops: the API offers no route to delete HVA rules; rule ${id} was disabled, not deleted`,
      );
      return released(false);
    }
  }

  /**
   * Diff (also run by preview, maybe without a key) checks the team when the key's team can be had;
   * when it cannot, the operation that follows checks it before sending anything.
   */
  private async sameTeamIfKnown(id: string, olds: HvaRuleOutputs): Promise<void> {
    if (typeof olds?.teamId !== "string" || olds.teamId === "") return;
    const client = await this.ctx.client().catch(() => undefined);
    const team = client && (await teamOf(client).catch(() => undefined));
    if (team !== undefined && client) await assertTeam(client, olds.teamId, `HVA rule ${id}`);
  }
}

/** The implementation the dynamic shim loads (`pulumi-secops/resources/hva-automation-rule`). */
export const provider = dynamicImplementation((ctx) => new HvaAutomationRuleImpl(ctx));
