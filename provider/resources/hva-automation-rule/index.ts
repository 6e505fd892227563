/** HvaAutomationRule's implementation, shared by both front-ends; `provider` is what the shim loads. */
import type * as pulumi from "@pulumi/pulumi";
import type { SecOpsClient } from "../../client/client";
import { ErrorCodes, SecOpsApiError, SecOpsInputError, isSecOpsError } from "../../client/errors";
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
  teamForWrite,
  teamOf,
} from "../framework/runtime";
import {
  declareInRun,
  declaredInRun,
  teamScope,
  withdrawFromRun,
  type Declaration,
} from "../framework/team-scope";
import { dynamicImplementation } from "../framework/shim-target";
import { FreshLoad, KeyedLock, RuleListCache, ruleOf, type RuleChange } from "./list-cache";
import {
  adoptLeftCreate,
  createOnce,
  held,
  identical,
  listForReconcile,
  listOrExplain,
  pendingCandidates,
  removePendingCreate,
  rulesBefore,
  sameRule,
  unsettledPending,
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

/** How messages name a rule from a state's properties. */
const quotedRule = (props: { field?: unknown; search?: unknown } | undefined) =>
  `the HVA rule with field ${JSON.stringify(props?.field)} and search ${JSON.stringify(props?.search)}`;

/** What identifies the rule a resource declares. */
const ruleKey = (field: string, search: string) => JSON.stringify([field, search]);

/** Why a second resource declaring one rule is refused. */
export const duplicateRuleReason = (other: string, field: string, search: string) =>
  `the rule with field ${JSON.stringify(field)} and search ${JSON.stringify(search)} is already declared ` +
  `by ${other} under the same secops provider: a rule held by two resources is deleted under one of ` +
  "them when the other goes. Declare each rule once (a renamed resource keeps its rule with the " +
  "aliases option: aliases: [its old URN])";

const quoted = (field: string, search: string) =>
  `the rule with field ${JSON.stringify(field)} and search ${JSON.stringify(search)}`;

/** Why a resource is refused when a resource under another provider of its team declares its rule. */
export const teamDuplicateReason = (
  other: Pick<Declaration, "urn" | "provider">,
  mine: string,
  team: string,
  field: string,
  search: string,
) =>
  `${quoted(field, search)} is already declared by ${other.urn} under ${other.provider}, which has a key of the same team (${team}) as ${mine}: a rule held by two resources is deleted under one of them when the other goes. Declare each rule once, under one provider of the team`;

/** Why a resource of the state is refused when a newcomer under another provider of its team declares its rule. */
export const heldByThisReason = (
  newcomer: Pick<Declaration, "urn" | "provider">,
  /** The team, when the newcomer is under another provider of it. */
  team: string | undefined,
  field: string,
  search: string,
) =>
  `${newcomer.urn} (new in this update, under ${newcomer.provider}, ${team === undefined ? "the same provider" : `a provider of the same team ${team}`}) declares ${quoted(field, search)}, which this resource holds: a rule held by two resources is deleted under one of them when the other goes. Remove that declaration (or its adoptExisting)`;

/**
 * Why a create is refused when its rule already exists in the team: never a second identical rule.
 * `dynamic`: the resource is a dynamic one (no `pulumi import`).
 */
export function existsReason(team: string, field: string, search: string, ids: string[], dynamic: boolean) {
  const which = ids.length === 1 ? `rule ${ids[0]}` : `rules ${ids.join(", ")}`;
  const take = dynamic
    ? "set adoptExisting: true on this resource"
    : `set adoptExisting: true on this resource, or import it (pulumi import secops:index:HvaAutomationRule <name> ${ids[0]}, then remove this declaration)`;
  return `${quoted(field, search)} already exists in team ${team} (${which}); a second identical rule is never created. To manage it, ${take}; if another resource or stack manages it, remove this declaration`;
}

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
  readonly #declared = new Declarations(
    "search",
    (other, key) => duplicateRuleReason(other, ...(JSON.parse(key) as [string, string])),
    (newcomer, key) =>
      heldByThisReason(
        { urn: newcomer, provider: this.ctx.describe?.() ?? "the secops provider" },
        undefined,
        ...(JSON.parse(key) as [string, string]),
      ),
  );
  /** Creates of the same rule (field and search) run one at a time. */
  readonly #creating = new KeyedLock();
  readonly #lists = new WeakMap<SecOpsClient, FreshLoad<HvaRule[]>>();
  /** Pending ids whose Diff planned their replace in this run: the delete then only forgets them. */
  readonly #replacing = new Set<string>();

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
    olds: unknown,
    news: unknown,
    urn = this.ctx.urn?.(),
  ): Promise<pulumi.dynamic.CheckResult<HvaRuleInputs>> {
    const checked = checkResult<HvaRuleInputs>(definition, news);
    // Without failures, field and search are strings (perhaps not known yet in preview).
    const { field, search } = checked.inputs;
    const key = isUnknown(field) || isUnknown(search) ? undefined : ruleKey(field, search);
    const inState = !!olds && typeof olds === "object" && Object.keys(olds).length > 0;
    const local = this.#declared.checked(checked, key, urn, inState);
    if (local.failures?.length || key === undefined || !urn) return local;
    const reason = await this.#teamClash(checked.inputs, urn, inState);
    return reason ? { ...local, failures: [{ property: "search", reason }] } : local;
  }

  /** The team-wide check's verdict; a refused resource's declaration is withdrawn (it holds nothing). */
  async #teamClash(inputs: HvaRuleInputs, urn: string, inState: boolean): Promise<string | undefined> {
    const refusal = await this.#teamRefusal(inputs, urn, inState);
    if (refusal) {
      withdrawFromRun(refusal.team, ruleKey(inputs.field, inputs.search), urn);
      this.#declared.withdraw(ruleKey(inputs.field, inputs.search), urn);
    }
    return refusal?.reason;
  }

  /**
   * The team-wide check (any provider of the team, in any process of the run), then never a second
   * identical rule: a new resource's rule that exists already is refused unless it adopts it or the
   * journal proves it is what this resource's interrupted create made. Without the team (no key in
   * preview, an API that does not answer) nothing is said here: the create checks again.
   */
  async #teamRefusal(inputs: HvaRuleInputs, urn: string, inState: boolean) {
    if (!teamScope) return undefined;
    const client = await this.ctx.client().catch(() => undefined);
    const team = client && (await teamOf(client).catch(() => undefined));
    if (!client || !team) return undefined;
    const { field, search } = inputs;
    const mine = this.ctx.describe?.() ?? "the secops provider";
    const adopts = inputs.adoptExisting === true;
    const others = declareInRun(team, ruleKey(field, search), { urn, provider: mine, inState, adopts });
    const first = others.find((o) => o.inState || !inState);
    if (first) return { team, reason: teamDuplicateReason(first, mine, team, field, search) };
    if (others.length) return { team, reason: heldByThisReason(others[0], team, field, search) };
    if (inState || adopts) return undefined;
    const listed = await this.#listCache.rules(client);
    const existing = [...(listed?.values() ?? [])].filter((r) => sameRule(r, inputs));
    if (existing.length === 0) return undefined;
    const own = intentJournal().madeFor(team, field, search, urn);
    if (existing.some((r) => own.has(r.id))) return undefined;
    const ids = existing.map((r) => r.id);
    return { team, reason: existsReason(team, field, search, ids, !this.ctx.urn?.()) };
  }

  async diff(id: string, olds: HvaRuleOutputs, news: HvaRuleInputs): Promise<pulumi.dynamic.DiffResult> {
    await sameTeamIfKnown(this.ctx, olds?.teamId, `HVA rule ${id}`);
    held(olds?.teamId, id, olds);
    // A pending create is settled by its delete, then created afresh.
    if (isPendingId(id)) return this.#replacePending(id, olds, news);
    const diff = diffInputs(definition, olds, news);
    // A resource replaced for its inputs lets its rule go; any other (even one the engine replaces on
    // its own, --target-replace) holds it: not even its replacement adopts it.
    if (diff.replaces.length === 0) this.#holds(id);
    return diff;
  }

  /**
   * A pending create (from an interrupted run, or a create whose outcome was unknown) is replaced: its
   * delete forgets the record (deleting only a rule its own create's answer proves), then the create
   * adopts what that answer made or creates the rule. A rule first seen later is a candidate, never a
   * proof: unless the resource adopts it (adoptExisting), the replace is refused, naming it.
   */
  async #replacePending(id: string, olds: HvaRuleOutputs, news: HvaRuleInputs) {
    const client = await this.ctx.client().catch(() => undefined);
    const team = client && (await teamOf(client).catch(() => undefined));
    if (client && team && news.adoptExisting !== true) {
      const urn = this.ctx.urn?.() ?? this.#declared.holder(ruleKey(news.field, news.search));
      const found = await pendingCandidates(client, team, olds as never, this.#claimed, urn);
      if (found.length) throw unsettledPending(olds, found, !this.ctx.urn?.());
    }
    this.#replacing.add(id);
    this.ctx.warn(
      `hva-pending-${id}`,
      `secops: ${quotedRule(olds)} is a pending create from an interrupted run (${id}); it is replaced to settle it: nothing is deleted that its own create did not prove it made`,
    );
    return { changes: true, replaces: ["search"], deleteBeforeReplace: true };
  }

  async create(inputs: HvaRuleInputs): Promise<pulumi.dynamic.CreateResult<HvaRuleOutputs>> {
    const client = await this.ctx.client();
    const key = ruleKey(inputs.field, inputs.search);
    // The dynamic host does not tell a create its URN: the one that declared the rule in this run.
    const urn = this.ctx.urn?.() ?? this.#declared.holder(key);
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
    const team = await teamForWrite(this.ctx, client);
    const { field, search } = inputs;
    const mine = this.ctx.describe?.() ?? "the secops provider";
    // Asked again before writing: another resource (of this provider, or of another provider of the
    // team in this run) may have declared the rule since the create began.
    const alone = () => {
      this.#declared.refuseContender(ruleKey(field, search), urn);
      if (!urn) return;
      const declared = { urn, provider: mine, inState: false, adopts: inputs.adoptExisting };
      const other = declareInRun(team, ruleKey(field, search), declared)[0];
      if (other) throw new SecOpsInputError("search", teamDuplicateReason(other, mine, team, field, search));
    };
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
      // Never a second identical rule (what a crashed run made, another stack's, one made by hand).
      if (before?.length)
        throw new SecOpsInputError("search", existsReason(team, field, search, before, !this.ctx.urn?.()));
      const busy = intentJournal().scan(team, field, search).busy;
      if (busy.length)
        throw new SecOpsInputError(
          "search",
          `${quoted(field, search)} is being created right now by another process on this machine (pid ${busy.map((b) => b.pid).join(", ")}: another stack's update, or the provider of an update that ended); nothing was sent. Run the update again once it is done: the rule it makes is then named here`,
        );
      const at = new Date().toISOString();
      // Without a list (strict-spec) nothing could be recovered from the journal: none is kept.
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
    await teamForWrite(this.ctx, client);
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
    await teamForWrite(this.ctx, client);
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
      const team = await teamForWrite(this.ctx, client);
      const replacing = this.#replacing.delete(id);
      const owner = urn ?? this.#declared.holder(ruleKey(props.field, props.search));
      await this.#creating.run(ruleKey(props.field, props.search), () =>
        removePendingCreate(client, team, id, props as never, this.#claimed, owner, replacing),
      );
      return false;
    }
    held(props?.teamId, id, props);
    const here = this.#takenOver.has(id) && (this.#takenOver.get(id) ?? "") !== (urn ?? "-");
    const elsewhere =
      !this.#takenOver.has(id) && intentJournal().takenOverElsewhere(await teamOf(client), id);
    // Another resource that holds the rule in this run, when the front-end tells URNs apart, or that
    // declares it under any provider of the team (a rule held twice converges on the one declared).
    const team = typeof props?.teamId === "string" && props.teamId !== "" ? props.teamId : undefined;
    const declarer =
      team && typeof props.field === "string" && typeof props.search === "string"
        ? declaredInRun(team, ruleKey(props.field, props.search), urn)[0]?.urn
        : undefined;
    const holder = urn ? [...(this.#holders.get(id) ?? [])].find((u) => u !== urn) : undefined;
    const kept =
      here || elsewhere
        ? "another resource of this stack took it over in this run (adoptExisting or import) and holds it now; only this resource left the stack"
        : (holder ?? declarer) &&
          `${holder ?? declarer} of this stack holds it; this resource no longer does`;
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
