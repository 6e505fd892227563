/** HvaAutomationRule's implementation, shared by both front-ends; `provider` is what the shim loads. */
import type * as pulumi from "@pulumi/pulumi";
import type { SecOpsClient } from "../../client/client";
import { ErrorCodes, SecOpsApiError, isSecOpsError } from "../../client/errors";
import type { HvaRule } from "../../client/types";
import type { ResourceContext, ResourceImplementation } from "../framework/context";
import { checkResult, diffInputs, fromApi } from "../framework/definition";
import {
  assertTeam,
  cannotImport,
  explainForbidden,
  isPendingId,
  isUnknown,
  partialFailure,
  sameTeamIfKnown,
  teamOf,
} from "../framework/runtime";
import { dynamicImplementation } from "../framework/shim-target";
import { FreshLoad, KeyedLock, RuleListCache, ruleOf, type RuleChange } from "./list-cache";
import {
  adoptLeftCreate,
  createOnce,
  held,
  identical,
  listForReconcile,
  listOrExplain,
  removePendingCreate,
  rulesBefore,
} from "./reconcile";
import { intentJournal } from "./intents";
import { Declarations } from "../framework/declarations";
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

/** A rule's outputs: what the API answered, else the inputs (and no team: ""). */
const outputs = (
  rule: HvaRule,
  inputs: Pick<HvaRuleInputs, "field" | "search" | "enabled">,
): HvaRuleOutputs => fromApi(definition, rule, { ...inputs, teamId: "" });

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
  readonly #declared = new Declarations("search", (other, key) =>
    duplicateRuleReason(other, ...(JSON.parse(key) as [string, string])),
  );
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

  /** Checks the inputs; a second resource of this provider declaring the same rule is refused. */
  async check(
    _olds: unknown,
    news: unknown,
    urn = this.ctx.urn?.(),
  ): Promise<pulumi.dynamic.CheckResult<HvaRuleInputs>> {
    const checked = checkResult<HvaRuleInputs>(definition, news);
    // Without failures, field and search are strings (perhaps not known yet in preview).
    const { field, search } = checked.inputs;
    const key = isUnknown(field) || isUnknown(search) ? undefined : ruleKey(field, search);
    return this.#declared.checked(checked, key, urn);
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
    const urn = this.ctx.urn?.();
    const key = ruleKey(inputs.field, inputs.search);
    this.#declared.refuseContender(key, urn);
    return this.#creating
      .run(key, () =>
        this.#listCache.writing(
          client,
          () => this.#createRule(client, inputs, urn),
          (r) => ruleOf(r.id, r.outs!),
        ),
      )
      .catch(async (err: unknown) => {
        throw await explainForbidden(client, err);
      });
  }

  /**
   * Adopts (what a crashed create of this rule made, or with adoptExisting an identical rule), or records
   * the rules that exist (the proof), journals the intent and creates; then sets `enabled`.
   */
  async #createRule(
    client: SecOpsClient,
    inputs: HvaRuleInputs,
    urn: string | undefined,
  ): Promise<pulumi.dynamic.CreateResult<HvaRuleOutputs>> {
    // Asked again before writing: another resource may have declared the rule since the create began.
    const alone = () => this.#declared.refuseContender(ruleKey(inputs.field, inputs.search), urn);
    const team = await teamOf(client);
    const journal = intentJournal();
    let lists = this.#lists.get(client);
    if (!lists) this.#lists.set(client, (lists = new FreshLoad(() => client.listHvaRules())));
    // The proof list is asked for now (after this create started); the journal is read meanwhile.
    const list = () =>
      listForReconcile(client, "creating an HVA rule records the rules that exist before it");
    const listed = lists.get().then(undefined, list);
    listed.catch(() => undefined); // not awaited when a left create is adopted or the scan throws
    let rule = await adoptLeftCreate(client, team, inputs, this.#claimed, urn);
    const before = rule ? undefined : await rulesBefore(listed, inputs);
    if (!rule && inputs.adoptExisting) {
      const rules = await listOrExplain(client, "adoptExisting looks for an identical rule");
      alone();
      rule = rules.find((r) => identical(r, inputs, this.#claimed));
      if (rule) {
        // Taken over in this run: a resource leaving the stack does not delete it.
        this.#takenOver.set(rule.id, urn);
        journal.markTakenOver(team, rule.id);
      }
    }
    if (!rule) {
      alone();
      const at = new Date().toISOString();
      // Without a list (strict-spec) nothing could be recovered from the journal: none is kept.
      const { field, search } = inputs;
      const intent = before
        ? journal.open(team, { field, search, before, at, ...(urn ? { urn } : {}) })
        : undefined;
      if (journal.failure) this.ctx.warn("intent-journal", journal.failure);
      try {
        rule = await createOnce(client, inputs, team, before, this.#claimed);
      } catch (err) {
        // The caller gets a pending id (with its proof) or a definite failure; a process that is ending
        // keeps the intent, as its caller may be gone and never record the pending id.
        if (!this.ctx.stopping) intent?.close();
        throw err;
      }
      intent?.made(rule.id); // kept until a later call shows the caller recorded it
    }
    this.#claimed.add(rule.id);
    // The API's default `enabled` may differ; a failure to set it is a partial create (the rule exists).
    if (rule.enabled !== inputs.enabled) {
      try {
        rule = await client.setHvaRuleEnabled(rule.id, inputs.enabled);
      } catch (err) {
        const what = `HVA rule ${rule.id} was created but setting enabled=${inputs.enabled} failed`;
        throw partialFailure(what, rule.id, { ...outputs(rule, inputs) }, inputs as never, err);
      }
    }
    return { id: rule.id, outs: disabledSince(outputs(rule, inputs), undefined, true) };
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
    // Not in the list (or no list): a GET tells "deleted" from "not listed" (null: no route to read).
    const rule =
      (await this.#listCache.rules(client))?.get(id) ??
      (await client.getHvaRule(id).catch((err: unknown) => {
        if (!isSecOpsError(err, ErrorCodes.UNSUPPORTED)) throw err;
        if (!props) throw cannotImport(`HVA rule ${id}`, err);
        return null;
      }));
    if (rule === null) {
      this.ctx.warn(
        "hva-read",
        "secops: the API offers no route to read HVA rules; state was kept as it is and drift detection is unavailable for HvaAutomationRule",
      );
      return { id, props };
    }
    if (!rule) return {};
    const outs = outputs(rule, props ?? { field: "", search: "", enabled: true });
    return { id, props: disabledSince(outs, props, false) };
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
    return this.#listCache.writing(
      client,
      async () => {
        const rule = await client.setHvaRuleEnabled(id, news.enabled).catch(async (err: unknown) => {
          if (!isSecOpsError(err, ErrorCodes.NOT_FOUND)) throw await explainForbidden(client, err);
          throw new SecOpsApiError(
            ErrorCodes.NOT_FOUND,
            `HVA rule ${id} no longer exists; run \`pulumi refresh\` so the next update recreates it`,
            { cause: err },
          );
        });
        return { outs: disabledSince(outputs(rule, news), olds, true) };
      },
      (r) => ruleOf(id, r.outs!),
    );
  }

  async delete(id: string, props: HvaRuleOutputs): Promise<void> {
    const client = await this.ctx.client();
    await assertTeam(client, props?.teamId, `HVA rule ${id}`);
    // Known effect: the rule is gone; a pending settle or a disable-for-delete drops the list instead.
    await this.#listCache.writing(
      client,
      () => this.remove(client, id, props),
      (removed): RuleChange | undefined => (removed ? { remove: id } : undefined),
    );
  }

  /** Deletes the rule; true when it is known to be gone from the list. */
  private async remove(client: SecOpsClient, id: string, props: HvaRuleOutputs): Promise<boolean> {
    const urn = this.ctx.urn?.();
    if (isPendingId(id)) {
      const team = await teamOf(client);
      await this.#creating.run(ruleKey(props.field, props.search), () =>
        removePendingCreate(client, team, id, props as never, this.#claimed, urn),
      );
      return false;
    }
    held(props?.teamId, id, props);
    const here = this.#takenOver.has(id) && (this.#takenOver.get(id) ?? "") !== (urn ?? "-");
    const elsewhere =
      !this.#takenOver.has(id) && intentJournal().takenOverElsewhere(await teamOf(client), id);
    // Another resource that holds the rule in this run, when the front-end tells URNs apart.
    const holder = urn ? [...(this.#holders.get(id) ?? [])].find((u) => u !== urn) : undefined;
    const kept =
      here || elsewhere
        ? "another resource of this stack took it over in this run (adoptExisting or import) and holds it now; only this resource left the stack"
        : holder && `${holder} of this stack holds it; this resource no longer does`;
    if (kept) {
      this.ctx.warn(`hva-kept-${id}`, `secops: HVA rule ${id} was not deleted: ${kept}`);
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
