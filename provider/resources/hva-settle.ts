/**
 * Settling creates whose outcome a crash or a fault left unknown, with proof (see hva-reconcile.ts):
 * a create of a rule adopts what a dead process's PUT of the same rule made; a delete of a pending id
 * removes what that create made. A rule that was in the list before the PUT, or that another resource
 * of this provider instance holds, is never claimed or deleted; with more than one candidate nothing is.
 */
import type { SecOpsClient } from "../client/client";
import { ErrorCodes, isSecOpsError } from "../client/errors";
import type { HvaRule } from "../client/types";
import type { IntentJournal } from "./intents";
import { candidates, listForReconcile, pendingRecordOf, unproven } from "./hva-reconcile";

type Rule = { field: string; search: string };

/**
 * Before a create: the rule a dead process's PUT of the same rule made, proven by its journaled
 * `before`, or undefined when no such PUT left an unknown outcome (or it made nothing).
 */
export async function adoptLeftCreate(
  client: SecOpsClient,
  journal: IntentJournal,
  team: string,
  inputs: Rule,
  claimed: ReadonlySet<string>,
): Promise<HvaRule | undefined> {
  const left = journal.left(team, inputs.field, inputs.search);
  if (left.length === 0) return undefined;
  const rules = await listForReconcile(client, "recovering a create a crash interrupted");
  for (const intent of left) {
    const found = candidates(rules, inputs, intent.before, claimed);
    if (found.length > 1)
      throw unproven(inputs, found, `a create interrupted at ${intent.at} left its outcome unknown`);
    intent.settle();
    if (found.length === 1) return found[0];
  }
  return undefined;
}

/**
 * Settles a pending create (the delete of a pending id): the rule it made, proven by the `before` it
 * recorded (in its state, else in the journal of the process that died), is deleted. A create with no
 * record anywhere never sent a PUT whose outcome is unknown (every PUT is journaled first): nothing to do.
 */
export async function removePendingCreate(
  client: SecOpsClient,
  journal: IntentJournal,
  team: string,
  props: Record<string, unknown>,
  claimed: ReadonlySet<string>,
): Promise<void> {
  const { field, search } = props;
  if (typeof field !== "string" || typeof search !== "string") return;
  const rule = { field, search };
  const recorded = pendingRecordOf(props);
  const left = recorded ? undefined : journal.left(team, field, search)[0];
  if (!recorded && !left) return;
  const rules = await listForReconcile(client, "settling a create whose outcome was unknown");
  const before = recorded ? recorded.before : (left?.before ?? null);
  // Recorded without a list (strict-spec at the time): every identical rule is a candidate.
  const found = candidates(rules, rule, before ?? [], claimed);
  if (found.length > 1 || (before === null && found.length > 0))
    throw unproven(rule, found, "settling a create whose outcome was unknown");
  if (found.length === 1)
    await client.deleteHvaRule(found[0].id).catch((err: unknown) => {
      if (!isSecOpsError(err, ErrorCodes.NOT_FOUND)) throw err;
    });
  left?.settle();
}
