/**
 * Settling creates a crash or fault left unknown, with proof (./reconcile.ts): a create adopts what a
 * dead process's PUT made; a pending id's delete removes it. A rule listed before the PUT, held, or
 * answered to another PUT is never claimed or deleted; nor is any of several.
 */
import type { SecOpsClient } from "../../client/client";
import { ErrorCodes, isSecOpsError } from "../../client/errors";
import type { HvaRule } from "../../client/types";
import { intentJournal, type IntentJournal, type LeftIntent } from "./intents";
import { candidates, identical, listForReconcile, pendingRecordOf, sameRule, unproven } from "./reconcile";
import { PENDING_ID_PREFIX } from "../framework/runtime";

type Rule = { field: string; search: string };

/** True for an intent of this resource: same URN (plugin), or neither has one (dynamic host). */
const forResource = (i: LeftIntent, urn: string | undefined) => (i.urn ?? "") === (urn ?? "");

/**
 * Before a create: the rule a dead process's PUT of the same rule made, if any. An answered PUT (whose
 * id the caller may never have recorded) is adopted only by the same URN; an unanswered one is proven
 * by its journaled `before`.
 */
export async function adoptLeftCreate(
  client: SecOpsClient,
  journal: IntentJournal,
  team: string,
  inputs: Rule,
  claimed: ReadonlySet<string>,
  urn: string | undefined,
): Promise<HvaRule | undefined> {
  await journal.confirmed(team, inputs.field, inputs.search);
  const { left, made } = journal.scanForCreate(team, inputs.field, inputs.search);
  const mine = urn ? left.filter((i) => i.made !== undefined && forResource(i, urn)) : [];
  const open = left.filter((i) => i.made === undefined && forResource(i, urn));
  if (mine.length === 0 && open.length === 0) return undefined;
  const rules = await listForReconcile(client, "recovering a create a crash interrupted");
  for (const intent of mine) {
    const rule = rules.find((r) => r.id === intent.made && sameRule(r, inputs) && !claimed.has(r.id));
    intent.settle();
    if (rule) return rule;
  }
  const held = new Set([...claimed, ...made]);
  for (const intent of open) {
    const found = candidates(rules, inputs, intent.before, held);
    if (found.length > 1)
      throw unproven(inputs, found, `a create interrupted at ${intent.at} left its outcome unknown`);
    intent.settle();
    if (found.length === 1) return found[0];
  }
  return undefined;
}

/**
 * Settles a pending create (its delete): the rule it made is deleted. The proof is the `before` in its
 * state, else the dead process's journal: an intent no older than the pending id whose PUT answered
 * with an id, or whose `before` leaves one candidate. No record anywhere: no PUT was sent (each is
 * journaled first), nothing to do.
 */
export async function removePendingCreate(
  client: SecOpsClient,
  journal: IntentJournal,
  team: string,
  id: string,
  props: Record<string, unknown>,
  claimed: ReadonlySet<string>,
  urn: string | undefined,
): Promise<void> {
  const { field, search } = props;
  if (typeof field !== "string" || typeof search !== "string") return;
  const rule = { field, search };
  const recorded = pendingRecordOf(props);
  await journal.confirmed(team, field, search);
  const { left, made } = journal.scan(team, field, search);
  const since = id.slice(PENDING_ID_PREFIX.length);
  const own = recorded ? [] : left.filter((i) => i.at >= since && forResource(i, urn));
  if (!recorded && own.length === 0) return;
  const why = "settling a create whose outcome was unknown";
  const rules = await listForReconcile(client, why);
  const held = new Set([...claimed, ...made]);
  const live = (ids: Iterable<string>) =>
    rules.filter((r) => [...ids].includes(r.id) && identical(r, rule, claimed));
  let found: HvaRule[];
  if (recorded) {
    // Recorded without a list (strict-spec at the time): every identical rule is a candidate.
    found = candidates(rules, rule, recorded.before ?? [], held);
    if (recorded.before === null && found.length > 0) throw unproven(rule, found, why);
  } else {
    const answered = own.flatMap((i) => (i.made ? [i.made] : []));
    found = live(answered);
    for (const i of own.filter((x) => !x.made)) found.push(...candidates(rules, rule, i.before, held));
    // Several interrupted creates of this rule: which one was this resource's cannot be told.
    if (own.length > 1 && found.length > 0) throw unproven(rule, found, why);
  }
  if (found.length > 1) throw unproven(rule, found, why);
  if (found.length === 1)
    await client.deleteHvaRule(found[0].id).catch((err: unknown) => {
      if (!isSecOpsError(err, ErrorCodes.NOT_FOUND)) throw err;
    });
  for (const i of own) i.settle();
}

/** A call about rule `id` shows the caller holds it: the journal drops the create's answer (unawaited). */
export function held(
  team: unknown,
  id: string,
  props: { field?: unknown; search?: unknown } | undefined,
): void {
  if (typeof team === "string" && team !== "" && !id.startsWith(PENDING_ID_PREFIX))
    intentJournal().confirmSoon(team, props?.field, props?.search, id);
}
