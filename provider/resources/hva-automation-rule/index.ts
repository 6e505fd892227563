/** HvaAutomationRule's implementation, shared by both front-ends; `provider` is what the shim loads. */
import type * as pulumi from "@pulumi/pulumi";
import type { SecOpsClient } from "../../client/client";
import { ErrorCodes, SecOpsApiError, SecOpsInputError, isSecOpsError } from "../../client/errors";
import type { HvaRule } from "../../client/types";
import type { ResourceContext, ResourceImplementation } from "../framework/context";
import { checkResult, diffInputs } from "../framework/definition";
import {
  assertTeam,
  cannotImport,
  explainForbidden,
  isPendingId,
  isUnknown,
  sameTeamIfKnown,
  teamOf,
} from "../framework/runtime";
import { dynamicImplementation } from "../framework/shim-target";
import { RuleListCache, ruleOf, writing, type RuleChange } from "./list-cache";
import { createRule, outputs } from "./create";
import { held, removePendingCreate } from "./settle";
import { intentJournal } from "./intents";
import { FreshLoad, KeyedLock } from "./serial";
import { Declarations, declaredOnce } from "../framework/declarations";
import { definition, type HvaRuleInputs, type HvaRuleOutputs } from "./definition";

export { definition, type HvaRuleInputs, type HvaRuleOutputs } from "./definition";

/**
 * The outputs with `disabledAt`: kept while the rule stays disabled, absent while enabled, set to now
 * by a write (`wrote`) that disables it. A refresh sets nothing: a rule disabled by hand is drift.
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

/** The implementation for one provider instance: its caches and claims are its own (teams never mix). */
export class HvaAutomationRuleImpl implements ResourceImplementation<HvaRuleInputs, HvaRuleOutputs> {
  readonly #listCache = new RuleListCache();
  /** Rules this instance created or adopted, or that a staying resource holds: never claimed twice. */
  readonly #claimed = new Set<string>();
  /** Rules adopted or imported in this run, with the taking URN (if known): another's delete leaves them. */
  readonly #takenOver = new Map<string, string | undefined>();
  /** Per rule, the URNs that showed in this run they keep it: no other resource adopts or deletes it. */
  readonly #holders = new Map<string, Set<string>>();
  /** Which resource declares which rule (field and search) in this run. */
  readonly #declared = new Declarations();
  /** Creates of the same rule (field and search) run one at a time. */
  readonly #creating = new KeyedLock();
  readonly #lists = new WeakMap<SecOpsClient, FreshLoad<HvaRule[]>>();

  constructor(private readonly ctx: ResourceContext) {}

  /** Records that the resource being served holds rule `id` (see #holders). */
  #holds(id: string): void {
    if (isPendingId(id)) return;
    this.#claimed.add(id);
    const urn = this.ctx.urn?.();
    if (urn) this.#holders.set(id, (this.#holders.get(id) ?? new Set<string>()).add(urn));
  }

  /** Another resource that holds rule `id` in this run, when the front-end tells URNs apart. */
  #heldElsewhere(id: string): string | undefined {
    const urn = this.ctx.urn?.();
    return urn ? [...(this.#holders.get(id) ?? [])].find((u) => u !== urn) : undefined;
  }

  /** Checks the inputs; a second resource of this provider declaring the same rule is refused. */
  async check(
    _olds: unknown,
    news: unknown,
    urn = this.ctx.urn?.(),
  ): Promise<pulumi.dynamic.CheckResult<HvaRuleInputs>> {
    const checked = checkResult<HvaRuleInputs>(definition, news);
    const { field, search } = checked.inputs ?? {};
    const known =
      typeof field === "string" && typeof search === "string" && !isUnknown(field) && !isUnknown(search);
    const key = known ? ruleKey(field, search) : undefined;
    return declaredOnce(this.#declared, checked, key, urn, (other) => ({
      property: "search",
      reason: duplicateRuleReason(other, field!, search!),
    }));
  }

  async diff(id: string, olds: HvaRuleOutputs, news: HvaRuleInputs): Promise<pulumi.dynamic.DiffResult> {
    await sameTeamIfKnown(this.ctx, olds?.teamId, `HVA rule ${id}`);
    held(olds?.teamId, id, olds);
    // A pending create is settled by its delete, then created afresh.
    if (isPendingId(id)) return { changes: true, replaces: ["search"], deleteBeforeReplace: true };
    const diff = diffInputs(definition, olds, news);
    // A resource replaced for its inputs lets its rule go; any other (even one the engine replaces on
    // its own, --target-replace) holds it: not even its replacement adopts it.
    if (diff.replaces.length === 0) this.#holds(id);
    return diff;
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
    const key = ruleKey(inputs.field, inputs.search);
    const alone = () =>
      this.#declared.refuseContender(
        key,
        urn,
        (other) => new SecOpsInputError("search", duplicateRuleReason(other, inputs.field, inputs.search)),
      );
    alone();
    const stopping = () => this.ctx.stopping === true;
    const c = { client, claimed: this.#claimed, adopted, lists, warn, urn, alone, stopping };
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
    // A refresh claims nothing: the resource may be leaving (`up --refresh`) for an adoptExisting one.
    if (!props) {
      // An import: see #takenOver (and, for another provider's process, the journal's mark).
      this.#takenOver.set(id, this.ctx.urn?.());
      intentJournal().markTakenOver(await teamOf(client), id);
    }
    const found = (rule: HvaRule) => ({
      id,
      props: disabledSince(outputs(rule, props ?? { field: "", search: "", enabled: true }), props, false),
    });
    const listed = (await this.#listCache.rules(client))?.get(id);
    if (listed) return found(listed);
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
    return rule ? found(rule) : {};
  }

  async update(
    id: string,
    olds: HvaRuleOutputs,
    news: HvaRuleInputs,
  ): Promise<pulumi.dynamic.UpdateResult<HvaRuleOutputs>> {
    const client = await this.ctx.client();
    await assertTeam(client, olds?.teamId, `HVA rule ${id}`);
    held(olds?.teamId, id, olds);
    this.#holds(id);
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
    // Known effect: the rule is gone; a pending settle or a disable-for-delete drops the list instead.
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
    const holder = this.#heldElsewhere(id);
    if (holder) {
      this.ctx.warn(
        `hva-kept-${id}`,
        `secops: HVA rule ${id} was not deleted: ${holder} of this stack holds it; this resource no longer does`,
      );
      return false;
    }
    // The claim goes only once the rule is gone (or disabled): a failed delete keeps it from adoption.
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
}

/** The implementation the dynamic shim loads (`pulumi-secops/resources/hva-automation-rule`). */
export const provider = dynamicImplementation((ctx) => new HvaAutomationRuleImpl(ctx));
