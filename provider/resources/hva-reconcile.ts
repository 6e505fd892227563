/**
 * How HvaAutomationRule settles what the API left unknown: a PUT whose outcome is unknown is
 * reconciled through the list (tried again on transient failures) and, when that cannot settle it,
 * recorded as a pending create that its next operation settles. Never a blind second PUT.
 */
import type { SecOpsClient } from "../client/client";
import { ErrorCodes, SecOpsApiError, SecOpsError, isSecOpsError } from "../client/errors";
import { backoffMs, sleep } from "../client/retry";
import type { HvaRule } from "../client/types";
import type { HvaRuleInputs } from "./hva-automation-rule";
import { partialFailure, pendingId } from "./runtime";

/**
 * True for an unclaimed rule with the same field and search as `i`. `claimed` holds the rules one
 * provider instance created or adopted, so two resources never claim one rule.
 */
export const identical = (
  r: HvaRule,
  i: Pick<HvaRuleInputs, "field" | "search">,
  claimed: ReadonlySet<string>,
) => r.searchField === i.field && r.search === i.search && !claimed.has(r.id);

/** Lists rules, or explains that this API cannot (strict-spec). */
export async function listOrExplain(client: SecOpsClient, why: string): Promise<HvaRule[]> {
  try {
    return await client.listHvaRules();
  } catch (err) {
    if (isSecOpsError(err, ErrorCodes.UNSUPPORTED)) {
      throw new SecOpsApiError(
        ErrorCodes.UNSUPPORTED,
        `${why}, but this API offers no way to list rules (${err.message})`,
        { cause: err },
      );
    }
    throw err;
  }
}

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
async function listForReconcile(client: SecOpsClient, why: string): Promise<HvaRule[]> {
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
 * PUT, reconciling an unknown outcome through the list: an identical unclaimed rule is taken as ours
 * (never a duplicate); none means the PUT did not land, so it is sent again. When the list cannot
 * settle it, the create is recorded as pending (a partial failure under a pending id), never forgotten.
 */
export async function createOnce(
  client: SecOpsClient,
  inputs: HvaRuleInputs,
  claimed: ReadonlySet<string>,
): Promise<HvaRule> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await client.createHvaRule({ field: inputs.field, search: inputs.search });
    } catch (err) {
      // AMBIGUOUS: the PUT may have landed. RESPONSE_INVALID: it landed (2xx) but the answer is unusable.
      const unknownOutcome =
        isSecOpsError(err, ErrorCodes.AMBIGUOUS) || isSecOpsError(err, ErrorCodes.RESPONSE_INVALID);
      if (!unknownOutcome || attempt >= 3) throw unknownOutcome ? pending(inputs, err, undefined) : err;
      let rules: HvaRule[];
      try {
        rules = await listForReconcile(
          client,
          `creating HVA rule (${inputs.field}=${inputs.search}) had an unknown outcome (${err.message}); checking for it needs the list`,
        );
      } catch (listErr) {
        if (isSecOpsError(listErr, ErrorCodes.UNSUPPORTED)) throw listErr;
        throw pending(inputs, err, listErr);
      }
      const found = rules.filter((r) => identical(r, inputs, claimed));
      if (found.length > 0) return found[found.length - 1];
    }
  }
}

/** The partial failure that records a create whose outcome could not be settled. */
function pending(inputs: HvaRuleInputs, err: SecOpsError, listErr: unknown): Error {
  const why = listErr === undefined ? "" : ` and checking for it failed (${(listErr as Error).message})`;
  return partialFailure(
    `HVA rule (${inputs.field}=${inputs.search}) may already exist: creating it had an unknown outcome${why}. It is recorded as a pending create; the next up or destroy looks for it and removes it before the rule is created again (never a duplicate)`,
    pendingId(),
    { field: inputs.field, search: inputs.search, enabled: inputs.enabled, teamId: "" },
    inputs as never,
    err,
  );
}

/**
 * Settles a pending create: the newest identical unclaimed rule (what the interrupted PUT made, if it
 * landed) is deleted, so the create that follows makes exactly one. Nothing found: nothing landed.
 */
export async function removePendingCreate(
  client: SecOpsClient,
  props: Pick<HvaRuleInputs, "field" | "search">,
  claimed: ReadonlySet<string>,
): Promise<void> {
  if (typeof props.field !== "string" || typeof props.search !== "string") return;
  const rules = await listForReconcile(
    client,
    `settling an interrupted create of HVA rule (${props.field}=${props.search}) needs the list`,
  );
  const found = rules.filter((r) => identical(r, props, claimed));
  const made = found[found.length - 1];
  if (!made) return;
  await client.deleteHvaRule(made.id).catch((err: unknown) => {
    if (!isSecOpsError(err, ErrorCodes.NOT_FOUND)) throw err;
  });
}
