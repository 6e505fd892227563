/**
 * HvaAutomationRule's implementation: a high-value-asset automation rule (`field` + `search`,
 * enabled or not). Typed inputs and outputs, check, diff and CRUD against SecOpsClient, shared by
 * both front-ends (`dynamic/` and `native/`). `provider` is what the dynamic shim loads.
 */
import type * as pulumi from "@pulumi/pulumi";
import type { SecOpsClient } from "../client/client";
import { ErrorCodes, SecOpsApiError, isSecOpsError } from "../client/errors";
import type { HvaRule } from "../client/types";
import type { ResourceContext, ResourceImplementation } from "./context";
import {
  Failures,
  assertTeam,
  cannotImport,
  explainForbidden,
  isPendingId,
  isUnknown,
  partialFailure,
  teamOf,
} from "./runtime";
import { dynamicImplementation } from "./shim-target";
import { RuleListCache } from "./hva-list-cache";
import { createOnce, identical, listForReconcile, listOrExplain, rulesBefore } from "./hva-reconcile";
import { adoptLeftCreate, held, removePendingCreate } from "./hva-settle";
import { intentJournal } from "./intents";
import { FreshLoad, KeyedLock } from "./serial";

/** Arguments of HvaAutomationRule (both front-ends). */
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

/** Input names of HvaAutomationRule (teamId is an output the dynamic class seeds as undefined). */
export const HVA_INPUTS = ["field", "search", "enabled", "adoptExisting", "teamId"] as const;
/** Documented input limits (characters): larger values are refused at check, before any request. */
const LIMITS = { field: 256, search: 4096 } as const;

/** Runs a write with the list cache dropped before and after it, so no read returns pre-write data. */
async function writing<T>(listCache: RuleListCache, write: () => Promise<T>): Promise<T> {
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

/** What a create needs besides its inputs: the instance's claimed rules, list loader and journal. */
interface CreateContext {
  client: SecOpsClient;
  claimed: Set<string>;
  lists: FreshLoad<HvaRule[]>;
  warn: ResourceContext["warn"];
  /** The URN of the resource being created, when the front-end knows it. */
  urn: string | undefined;
}

/**
 * Adopts (adoptExisting, or what a crashed create of this rule made), or records the rules that exist
 * (the proof), journals the intent and creates; then sets `enabled` if the API's default differs.
 */
async function createRule(
  c: CreateContext,
  inputs: HvaRuleInputs,
): Promise<pulumi.dynamic.CreateResult<HvaRuleOutputs>> {
  const { client, claimed } = c;
  const team = await teamOf(client);
  const journal = intentJournal();
  let rule = await adoptLeftCreate(client, journal, team, inputs, claimed, c.urn);
  const list = () => listForReconcile(client, "creating an HVA rule records the rules that exist before it");
  const before = rule ? undefined : await rulesBefore(() => c.lists.get().then(undefined, list), inputs);
  if (!rule && inputs.adoptExisting) {
    const rules = await listOrExplain(client, "adoptExisting looks for an identical rule");
    rule = rules.find((r) => identical(r, inputs, claimed));
  }
  if (!rule) {
    const at = new Date().toISOString();
    // Without a list (strict-spec) nothing could be recovered from the journal: none is kept.
    const { field, search } = inputs;
    const intent = before
      ? journal.open(team, { field, search, before, at, ...(c.urn ? { urn: c.urn } : {}) })
      : undefined;
    if (journal.failure) c.warn("intent-journal", journal.failure);
    try {
      rule = await createOnce(client, inputs, team, before, claimed);
    } catch (err) {
      intent?.close(); // a pending id (with its proof) or a definite failure goes back to the caller
      throw err;
    }
    intent?.made(rule.id); // kept until a later call shows the caller recorded it
  }
  claimed.add(rule.id);
  rule = await ensureEnabled(client, rule, inputs);
  return { id: rule.id, outs: outputs(rule, inputs) };
}

/** Checks inputs without network: one failure per problem, named by property. */
export async function checkHvaRule(news: unknown): Promise<pulumi.dynamic.CheckResult<HvaRuleInputs>> {
  const f = new Failures();
  if (!f.known(news, "HvaAutomationRule", HVA_INPUTS))
    return { inputs: {} as HvaRuleInputs, failures: f.list };
  f.string(news, "field");
  f.string(news, "search");
  f.maxLength(news, "field", LIMITS.field);
  f.maxLength(news, "search", LIMITS.search);
  f.optionalBoolean(news, "enabled");
  f.optionalBoolean(news, "adoptExisting");
  const inputs = {
    ...news,
    enabled: news.enabled ?? true,
    adoptExisting: news.adoptExisting ?? false,
  } as HvaRuleInputs;
  return f.list.length ? { inputs: news as unknown as HvaRuleInputs, failures: f.list } : { inputs };
}

/**
 * The implementation for one provider instance: its list cache and its record of claimed rules are
 * its own, so two teams' instances in one process never see each other's rules.
 */
export class HvaAutomationRuleImpl implements ResourceImplementation<HvaRuleInputs, HvaRuleOutputs> {
  readonly #listCache = new RuleListCache();
  /** Rules this instance created or adopted, so two resources never claim one rule. */
  readonly #claimed = new Set<string>();
  /** Creates of the same rule (field and search) run one at a time. */
  readonly #creating = new KeyedLock();
  readonly #lists = new WeakMap<SecOpsClient, FreshLoad<HvaRule[]>>();

  constructor(private readonly ctx: ResourceContext) {}

  check(_olds: unknown, news: unknown): Promise<pulumi.dynamic.CheckResult<HvaRuleInputs>> {
    return checkHvaRule(news);
  }

  async diff(id: string, olds: HvaRuleOutputs, news: HvaRuleInputs): Promise<pulumi.dynamic.DiffResult> {
    await this.sameTeamIfKnown(id, olds);
    held(olds?.teamId, id, olds);
    // A pending create is settled by its delete, then created afresh.
    if (isPendingId(id)) return { changes: true, replaces: ["search"], deleteBeforeReplace: true };
    const replaces = (["field", "search"] as const).filter((k) => isUnknown(news[k]) || olds[k] !== news[k]);
    const enabled = news.enabled ?? true;
    const changes = replaces.length > 0 || isUnknown(enabled) || olds.enabled !== enabled;
    return { changes, replaces, deleteBeforeReplace: false };
  }

  async create(inputs: HvaRuleInputs): Promise<pulumi.dynamic.CreateResult<HvaRuleOutputs>> {
    const client = await this.ctx.client();
    let lists = this.#lists.get(client);
    if (!lists) this.#lists.set(client, (lists = new FreshLoad(() => client.listHvaRules())));
    const warn = (k: string, m: string) => this.ctx.warn(k, m);
    const c = { client, claimed: this.#claimed, lists, warn, urn: this.ctx.urn?.() };
    const key = JSON.stringify([inputs.field, inputs.search]);
    return this.#creating
      .run(key, () => writing(this.#listCache, () => createRule(c, inputs)))
      .catch(async (err: unknown) => {
        throw await explainForbidden(client, err);
      });
  }

  /** Refresh (with the last outputs) or import (`props` undefined: the id is all there is). */
  async read(id: string, props?: HvaRuleOutputs): Promise<pulumi.dynamic.ReadResult<HvaRuleOutputs>> {
    if (isPendingId(id)) return { id, props }; // kept until the next up or destroy settles it
    const client = await this.ctx.client();
    await assertTeam(client, props?.teamId, `HVA rule ${id}`);
    held(props?.teamId, id, props);
    const listed = (await this.#listCache.rules(client))?.get(id);
    if (listed) return { id, props: outputs(listed, props ?? { field: "", search: "", enabled: true }) };
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
    return { id, props: outputs(rule, props ?? { field: "", search: "", enabled: true }) };
  }

  async update(
    id: string,
    olds: HvaRuleOutputs,
    news: HvaRuleInputs,
  ): Promise<pulumi.dynamic.UpdateResult<HvaRuleOutputs>> {
    const client = await this.ctx.client();
    await assertTeam(client, olds?.teamId, `HVA rule ${id}`);
    held(olds?.teamId, id, olds);
    return writing(this.#listCache, async () => {
      try {
        const rule = await client.setHvaRuleEnabled(id, news.enabled);
        return { outs: outputs(rule, news) };
      } catch (err) {
        if (!isSecOpsError(err, ErrorCodes.NOT_FOUND)) throw await explainForbidden(client, err);
        throw new SecOpsApiError(
          ErrorCodes.NOT_FOUND,
          `HVA rule ${id} no longer exists; run \`pulumi refresh\` so the next update recreates it`,
          { cause: err },
        );
      }
    });
  }

  async delete(id: string, props: HvaRuleOutputs): Promise<void> {
    const client = await this.ctx.client();
    await assertTeam(client, props?.teamId, `HVA rule ${id}`);
    return writing(this.#listCache, async () => {
      if (isPendingId(id)) {
        const team = await teamOf(client);
        const key = JSON.stringify([props.field, props.search]);
        const urn = this.ctx.urn?.();
        const settle = () =>
          removePendingCreate(client, intentJournal(), team, id, props as never, this.#claimed, urn);
        return this.#creating.run(key, settle);
      }
      held(props?.teamId, id, props);
      try {
        await client.deleteHvaRule(id);
      } catch (err) {
        if (isSecOpsError(err, ErrorCodes.NOT_FOUND)) return;
        if (!isSecOpsError(err, ErrorCodes.UNSUPPORTED)) throw err;
        await client.setHvaRuleEnabled(id, false).catch((e: unknown) => {
          if (!isSecOpsError(e, ErrorCodes.NOT_FOUND)) throw e;
        });
        this.ctx.warn(
          `hva-delete-${id}`,
          `secops: the API offers no route to delete HVA rules; rule ${id} was disabled, not deleted`,
        );
      } finally {
        this.#claimed.delete(id);
      }
    });
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
