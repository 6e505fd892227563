/**
 * How a rule resource proves which rule is its own. Before the PUT, the listed rules with the same
 * field and search are recorded (`before`, also journaled). A PUT with an unknown outcome (5xx, reset
 * or timeout after sending, unusable 2xx) is reconciled by listing: a new, unheld rule is ours only if
 * it is the only one. Else nothing is claimed or deleted: the create is recorded pending (with
 * `before`) and the error names the candidates. Never a blind second PUT.
 *
 * Settling creates a crash or fault left unknown, with that proof: a create adopts what a dead
 * process's PUT made; a pending id's delete removes it. A rule listed before the PUT, held, or
 * answered to another PUT is never claimed or deleted; nor is any of several.
 */
import type { SecOpsClient } from "../../client/client";
import {
  ErrorCodes,
  SecOpsApiError,
  SecOpsError,
  SecOpsSafetyError,
  isSecOpsError,
} from "../../client/errors";
import { backoffMs, sleep } from "../../client/retry";
import type { HvaRule } from "../../client/types";
import type { HvaRuleInputs } from "./definition";
import { PENDING_ID_PREFIX, partialFailure, pendingId } from "../framework/runtime";
import { intentJournal, type LeftIntent } from "./intents";

type Rule = Pick<HvaRuleInputs, "field" | "search">;

/** What a pending create keeps in its properties: the proof its settle needs. */
export interface PendingRecord {
  before: string[] | null;
  at: string;
}
/** The property of a pending create's state that holds its {@link PendingRecord}. */
export const PENDING_PROPERTY = "__pendingCreate";

/** True for a rule with the same field and search as `i`. */
export const sameRule = (r: HvaRule, i: Rule) => r.searchField === i.field && r.search === i.search;

/** True for a rule with `i`'s field and search that no resource of the instance has claimed. */
export const identical = (r: HvaRule, i: Rule, claimed: ReadonlySet<string>) =>
  sameRule(r, i) && !claimed.has(r.id);

/** Lists rules, or explains that this API cannot (strict-spec). */
export const listOrExplain = (client: SecOpsClient, why: string): Promise<HvaRule[]> =>
  client.listHvaRules().catch((err: unknown) => {
    if (!isSecOpsError(err, ErrorCodes.UNSUPPORTED)) throw err;
    const message = `${why}, but this API offers no way to list rules (${err.message})`;
    throw new SecOpsApiError(ErrorCodes.UNSUPPORTED, message, { cause: err });
  });

/** Failures of a reconciling list worth another try: the server or the network, not the request. */
const TRANSIENT: readonly string[] = [
  ErrorCodes.SERVER,
  ErrorCodes.NETWORK,
  ErrorCodes.TIMEOUT,
  ErrorCodes.RATE_LIMITED,
  ErrorCodes.RESPONSE_INVALID,
  ErrorCodes.UNEXPECTED_STATUS,
];
/** Tries of the reconciling list, on top of the transport's own retries. */
const LIST_TRIES = 4;

/** Lists rules for a reconciliation, trying again on transient failures (a 500 on a list is not final). */
export async function listForReconcile(client: SecOpsClient, why: string): Promise<HvaRule[]> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await listOrExplain(client, why);
    } catch (err) {
      const transient = err instanceof SecOpsError && TRANSIENT.includes(err.code);
      if (!transient || attempt >= LIST_TRIES) throw err;
      await sleep(backoffMs(attempt, 250, 4_000));
    }
  }
}

/**
 * The proof: ids of the listed rules with the create's field and search, before its PUT. Undefined
 * without a list route (strict-spec): an unknown outcome is then only recorded, never reconciled.
 */
export const rulesBefore = (listed: Promise<HvaRule[]>, inputs: Rule): Promise<string[] | undefined> =>
  listed.then(
    (rules) => rules.filter((r) => sameRule(r, inputs)).map((r) => r.id),
    (err: unknown) => {
      if (isSecOpsError(err, ErrorCodes.UNSUPPORTED)) return undefined;
      throw err;
    },
  );

/** The rules that may be what an interrupted create made: same rule, not there before, not held. */
export function candidates(
  rules: HvaRule[],
  i: Rule,
  before: readonly string[],
  claimed: ReadonlySet<string>,
) {
  return rules.filter((r) => identical(r, i, claimed) && !before.includes(r.id));
}

const describe = (i: Rule) => `HVA rule with field ${JSON.stringify(i.field)}`;

/** The error of a settle that cannot tell which rule an interrupted create made. */
export function unproven(i: Rule, found: HvaRule[], what: string): SecOpsSafetyError {
  const ids = found.map((r) => r.id);
  return new SecOpsSafetyError(
    ErrorCodes.UNPROVEN,
    `${what}: ${ids.length} rules (${ids.join(", ")}) could each be the ${describe(i)} it made, so none was claimed or deleted. Check them in the product: delete the one this resource made and run up again, or import it (pulumi import secops:index:HvaAutomationRule <name> <id>)`,
    ids,
  );
}

/** PUT, reconciling an unknown outcome through the list (see the module comment). */
export async function createOnce(
  client: SecOpsClient,
  inputs: HvaRuleInputs,
  team: string,
  before: string[] | undefined,
  claimed: ReadonlySet<string>,
): Promise<HvaRule> {
  // The partial failure that records a create whose outcome could not be settled.
  const pending = (err: SecOpsError, why: string) => {
    const record: PendingRecord = { before: before ?? null, at: new Date().toISOString() };
    return partialFailure(
      `${describe(inputs)} may already exist: creating it had an unknown outcome and ${why}. It is recorded as a pending create; the next up or destroy settles it (never a duplicate, never a rule that was there before)`,
      pendingId(),
      {
        field: inputs.field,
        search: inputs.search,
        enabled: inputs.enabled,
        teamId: team,
        [PENDING_PROPERTY]: record,
      },
      inputs as never,
      err,
    );
  };
  for (let attempt = 1; ; attempt++) {
    try {
      return await client.createHvaRule({ field: inputs.field, search: inputs.search });
    } catch (err) {
      // AMBIGUOUS: the PUT may have landed. RESPONSE_INVALID: it landed (2xx) but the answer is unusable.
      const unknownOutcome =
        isSecOpsError(err, ErrorCodes.AMBIGUOUS) || isSecOpsError(err, ErrorCodes.RESPONSE_INVALID);
      if (!unknownOutcome) throw err;
      if (before === undefined) throw pending(err, "this API offers no list to check for it");
      const why = `checking whether the ${describe(inputs)} landed`;
      const rules = await listForReconcile(client, why).catch((listErr: Error) => {
        throw pending(err, `checking for it failed (${listErr.message})`);
      });
      const found = candidates(rules, inputs, before, claimed);
      if (found.length === 1) return found[0];
      if (found.length > 1)
        throw pending(err, unproven(inputs, found, "the create had an unknown outcome").message);
      if (attempt >= 3) throw pending(err, "it did not land after 3 tries");
      // Nothing new in the list: the PUT did not land; it is sent again.
    }
  }
}

/** True for a well-formed {@link PendingRecord}. */
export function pendingRecordOf(props: Record<string, unknown> | undefined): PendingRecord | undefined {
  const r = props?.[PENDING_PROPERTY] as PendingRecord | undefined;
  const ids = (b: unknown) => b === null || (Array.isArray(b) && b.every((x) => typeof x === "string"));
  return r && typeof r === "object" && ids(r.before) ? r : undefined;
}

/** True for an intent of this resource: same URN (plugin), or neither has one (dynamic host). */
const forResource = (i: LeftIntent, urn: string | undefined) => (i.urn ?? "") === (urn ?? "");

/**
 * Before a create: the rule a dead process's PUT of the same rule made, if any. An answered PUT (whose
 * id the caller may never have recorded) is adopted only by the same URN; an unanswered one is proven
 * by its journaled `before`.
 */
export async function adoptLeftCreate(
  client: SecOpsClient,
  team: string,
  inputs: Rule,
  claimed: ReadonlySet<string>,
  urn: string | undefined,
): Promise<HvaRule | undefined> {
  await intentJournal().confirmed(team, inputs.field, inputs.search);
  const { left, made } = intentJournal().scanForCreate(team, inputs.field, inputs.search);
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
  await intentJournal().confirmed(team, field, search);
  const { left, made } = intentJournal().scan(team, field, search);
  const since = id.slice(PENDING_ID_PREFIX.length);
  const own = recorded ? [] : left.filter((i) => i.at >= since && forResource(i, urn));
  if (!recorded && own.length === 0) return;
  const why = "settling a create whose outcome was unknown";
  const rules = await listForReconcile(client, why);
  const held = new Set([...claimed, ...made]);
  let found: HvaRule[];
  if (recorded) {
    // Recorded without a list (strict-spec at the time): every identical rule is a candidate.
    found = candidates(rules, rule, recorded.before ?? [], held);
    if (recorded.before === null && found.length > 0) throw unproven(rule, found, why);
  } else {
    const answered = own.flatMap((i) => (i.made ? [i.made] : []));
    found = rules.filter((r) => answered.includes(r.id) && identical(r, rule, claimed));
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
