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
  SecOpsInputError,
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
      // Proof against another stack on this machine: no other create of the rule in the journal.
      const { made, busy } = intentJournal().scan(team, inputs.field, inputs.search);
      const fresh = candidates(rules, inputs, before, claimed);
      const theirs = fresh.filter((r) => made.has(r.id));
      const found = fresh.filter((r) => !made.has(r.id));
      if (found.length === 1 && theirs.length === 0 && busy.length === 0) return found[0];
      if (found.length > 1)
        throw pending(err, unproven(inputs, found, "the create had an unknown outcome").message);
      if (found.length === 1)
        throw pending(
          err,
          `rule ${found[0].id} appeared, but another create of the same rule ran at the same time (another stack or process on this machine), so it cannot be proven this create's`,
        );
      if (theirs.length)
        throw new SecOpsInputError(
          "search",
          `${describe(inputs)} and search ${JSON.stringify(inputs.search)} was created meanwhile by another create (rule ${theirs.map((r) => r.id).join(", ")}: another stack or process on this machine), and this create's PUT did not land; a second identical rule is never created. If this resource should manage it, set adoptExisting: true on it; else remove this declaration`,
        );
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
 * Before a create: the rule this resource's interrupted create made, proven by the answer to its own
 * PUT (kept in the journal with the URN, by a process that died or by a dynamic-provider host that
 * outlived its engine). A PUT that never answered proves nothing: a rule seen now is a candidate, and
 * the create then refuses to make a second one (see existsReason).
 */
export async function adoptLeftCreate(
  client: SecOpsClient,
  team: string,
  inputs: Rule,
  claimed: ReadonlySet<string>,
  urn: string | undefined,
): Promise<HvaRule | undefined> {
  const journal = intentJournal();
  await journal.confirmed(team, inputs.field, inputs.search);
  const { left } = journal.scanForCreate(team, inputs.field, inputs.search);
  const answered = journal.madeFor(team, inputs.field, inputs.search, urn);
  const open = left.filter((i) => i.made === undefined && forResource(i, urn));
  if (answered.size === 0 && open.length === 0) return undefined;
  const rules = await listForReconcile(client, "recovering a create a crash interrupted");
  const rule = rules.find((r) => answered.has(r.id) && sameRule(r, inputs) && !claimed.has(r.id));
  for (const i of left) if (i.made !== undefined && answered.has(i.made)) i.settle();
  // An unanswered PUT with no rule but those listed before it landed nothing: nothing to keep.
  for (const i of open) if (!rules.some((r) => sameRule(r, inputs) && !i.before.includes(r.id))) i.settle();
  return rule;
}

/**
 * The rules a pending create's resource cannot claim without the user: same field and search, not
 * listed before its PUT, held by no resource here and made by no other create's answer. Found after
 * the create's own request, each is a candidate, never a proof.
 */
export async function pendingCandidates(
  client: SecOpsClient,
  team: string,
  props: Record<string, unknown>,
  claimed: ReadonlySet<string>,
  urn: string | undefined,
): Promise<HvaRule[]> {
  const { field, search } = props;
  if (typeof field !== "string" || typeof search !== "string") return [];
  const before = pendingRecordOf(props)?.before ?? [];
  const rules = await listForReconcile(client, "settling a create whose outcome was unknown");
  const journal = intentJournal();
  await journal.confirmed(team, field, search);
  const { made } = journal.scan(team, field, search);
  const answered = journal.madeFor(team, field, search, urn);
  return candidates(rules, { field, search }, before, claimed).filter(
    (r) => !made.has(r.id) && !answered.has(r.id),
  );
}

/** The refusal to settle a pending create whose candidates only the user can tell apart. */
export function unsettledPending(
  props: { field?: unknown; search?: unknown } | undefined,
  found: HvaRule[],
  dynamic: boolean,
): SecOpsSafetyError {
  const ids = found.map((r) => r.id);
  const which = ids.length === 1 ? `rule ${ids[0]}` : `rules ${ids.join(", ")}`;
  const importIt = dynamic
    ? ""
    : ` (or pulumi state delete <urn>, then pulumi import secops:index:HvaAutomationRule <name> ${ids[0]})`;
  return new SecOpsSafetyError(
    ErrorCodes.UNPROVEN,
    `the HVA rule with field ${JSON.stringify(props?.field)} and search ${JSON.stringify(props?.search)} is a pending create: its create's outcome was unknown, and ${which} with that field and search appeared after the create's own request; a rule first seen later is a candidate, never a proof, so nothing was claimed or deleted. If it is this resource's rule, set adoptExisting: true on this resource${importIt}; if it is not, delete it by hand or remove this declaration, then run again`,
    ids,
  );
}

/**
 * Settles a pending create (its delete). In a replace its Diff planned (`replacing`), the record is
 * only forgotten: the create that follows adopts what its own PUT's answer proves, and refuses to
 * make a second rule. In a destroy, the rule its PUT's answer proves is deleted; a candidate seen
 * only now refuses the delete, naming it (nothing is deleted on its strength).
 */
export async function removePendingCreate(
  client: SecOpsClient,
  team: string,
  _id: string,
  props: Record<string, unknown>,
  claimed: ReadonlySet<string>,
  urn: string | undefined,
  replacing = false,
): Promise<void> {
  const { field, search } = props;
  if (replacing || typeof field !== "string" || typeof search !== "string") return;
  const found = await pendingCandidates(client, team, props, claimed, urn);
  if (found.length) throw unsettledPending(props, found, !urn);
  const answered = intentJournal().madeFor(team, field, search, urn);
  for (const id of answered)
    await client.deleteHvaRule(id).catch((err: unknown) => {
      if (!isSecOpsError(err, ErrorCodes.NOT_FOUND)) throw err;
    });
  for (const i of intentJournal().left(team, field, search))
    if (i.made !== undefined && answered.has(i.made)) i.settle();
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
