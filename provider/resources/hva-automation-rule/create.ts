/** Creating an HVA rule: adopt what a crashed create made or an identical rule, else create with proof. */
import type * as pulumi from "@pulumi/pulumi";
import type { SecOpsClient } from "../../client/client";
import type { HvaRule } from "../../client/types";
import type { ResourceContext } from "../framework/context";
import { fromApi } from "../framework/definition";
import { definition, type HvaRuleInputs, type HvaRuleOutputs } from "./definition";
import { createOnce, identical, listForReconcile, listOrExplain, rulesBefore } from "./reconcile";
import { adoptLeftCreate } from "./settle";
import { intentJournal } from "./intents";
import { partialFailure, teamOf } from "../framework/runtime";
import type { FreshLoad } from "./serial";

/** A rule's outputs: what the API answered, else the inputs (and no team: ""). */
export const outputs = (
  rule: HvaRule,
  inputs: Pick<HvaRuleInputs, "field" | "search" | "enabled">,
): HvaRuleOutputs => fromApi(definition, rule, { ...inputs, teamId: "" });

/** Sets `enabled` when the API's default differs; a failure is a partial create (the rule exists). */
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
export interface CreateContext {
  client: SecOpsClient;
  claimed: Set<string>;
  /** Rules adoptExisting took over in this run (a resource leaving the stack does not delete them). */
  adopted: { add(id: string, team: string): void };
  lists: FreshLoad<HvaRule[]>;
  warn: ResourceContext["warn"];
  /** The URN of the resource being created, when the front-end knows it. */
  urn: string | undefined;
  /** Throws when another resource declared the same rule since the create began (asked before writing). */
  alone(): void;
  /** True once the provider's process is ending: a pending id may never reach the state. */
  stopping(): boolean;
}

/**
 * Adopts (what a crashed create of this rule made, or with adoptExisting an identical rule), or records
 * the rules that exist (the proof), journals the intent and creates; then sets `enabled`.
 */
export async function createRule(
  c: CreateContext,
  inputs: HvaRuleInputs,
): Promise<pulumi.dynamic.CreateResult<HvaRuleOutputs>> {
  const { client, claimed } = c;
  const team = await teamOf(client);
  const journal = intentJournal();
  // The proof list is asked for now (after this create started); the journal is read meanwhile.
  const list = () => listForReconcile(client, "creating an HVA rule records the rules that exist before it");
  const listed = c.lists.get().then(undefined, list);
  listed.catch(() => undefined); // not awaited when a left create is adopted or the scan throws
  let rule = await adoptLeftCreate(client, journal, team, inputs, claimed, c.urn);
  const before = rule ? undefined : await rulesBefore(() => listed, inputs);
  if (!rule && inputs.adoptExisting) {
    const rules = await listOrExplain(client, "adoptExisting looks for an identical rule");
    c.alone();
    rule = rules.find((r) => identical(r, inputs, claimed));
    if (rule) c.adopted.add(rule.id, team);
  }
  if (!rule) {
    c.alone();
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
      // The caller gets a pending id (with its proof) or a definite failure; a process that is ending
      // keeps the intent, as its caller may be gone and never record the pending id.
      if (!c.stopping()) intent?.close();
      throw err;
    }
    intent?.made(rule.id); // kept until a later call shows the caller recorded it
  }
  claimed.add(rule.id);
  rule = await ensureEnabled(client, rule, inputs);
  return { id: rule.id, outs: outputs(rule, inputs) };
}
