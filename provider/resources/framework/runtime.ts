/**
 * Machinery shared by every resource implementation: pending ids, Pulumi's partial-failure error,
 * the team check and the 403 explanation (checks come from the definitions: ./definition.ts).
 */
import type { SecOpsClient } from "../../client/client";
import {
  ErrorCodes,
  SecOpsApiError,
  SecOpsError,
  SecOpsSafetyError,
  isSecOpsError,
} from "../../client/errors";
import { roles } from "../../client/routes";
import type { ResourceContext } from "./context";
import { UNKNOWN } from "./markers";

/** True when a preview input is not known yet. */
export const isUnknown = (v: unknown): boolean => v === UNKNOWN;

/**
 * The id of a create whose outcome is unknown (the request may have landed, and checking failed or
 * the process died). Such a resource is recorded under this id, never forgotten: its next operation
 * looks for what the create may have made before anything else is sent (protocol: a `delete` of a
 * pending id removes what the interrupted create made, if anything; `diff` replaces it).
 */
export const PENDING_ID_PREFIX = "pending:";

/** True for an id recorded by a create whose outcome is unknown. */
export const isPendingId = (id: unknown): boolean =>
  typeof id === "string" && id.startsWith(PENDING_ID_PREFIX);

/** A fresh pending id. */
export const pendingId = (): string => `${PENDING_ID_PREFIX}${new Date().toISOString()}`;

/**
 * Pulumi's partial-failure error: the object was created but not fully set up. The host records
 * `id` and `properties` in state (so nothing is orphaned) and reports the reasons.
 */
export function partialFailure(
  message: string,
  id: string,
  properties: Record<string, unknown>,
  inputs: Record<string, unknown>,
  cause: unknown,
): Error {
  const reason = cause instanceof Error ? cause.message : String(cause);
  const err = new Error(`${message}: ${reason}`, { cause }) as Error & {
    id: string;
    properties: Record<string, unknown>;
    reasons: string[];
  };
  err.id = id;
  // The host does not add __provider to a failed create's properties; without it the next
  // operation on this resource could not load the provider.
  err.properties = { ...properties, __provider: inputs.__provider };
  err.reasons = [reason];
  return err;
}

/**
 * Turns a 403 on a write into an error that says the key's role and which roles may write
 * (an assumption: the spec does not show role permissions). Other errors pass through.
 */
export async function explainForbidden(client: SecOpsClient, err: unknown): Promise<unknown> {
  if (!isSecOpsError(err, ErrorCodes.FORBIDDEN)) return err;
  const role = await client.identity().then(
    (me) => me.role,
    () => "unknown (GET /v1/auth/me failed)",
  );
  return new SecOpsApiError(
    ErrorCodes.FORBIDDEN,
    `${err.message}. This API key's role is ${role}; writes need ${roles.writers.join(" or ")} (an assumption; see docs/assumptions.md in the pulumi-secops package)`,
    { status: err.status, method: err.method, path: err.path, apiMessage: err.apiMessage, cause: err },
  );
}

/** An import (a read with an id only) that this API cannot serve: it offers no route to read `what`. */
export function cannotImport(what: string, cause: unknown): SecOpsError {
  return new SecOpsApiError(
    ErrorCodes.UNSUPPORTED,
    `cannot import ${what}: this API offers no route to read it, so its current values are unknown`,
    { cause },
  );
}

/** The team of a client's key (GET /v1/auth/me, once per client). */
export const teamOf = async (client: SecOpsClient): Promise<string> => (await client.identity()).teamId;

/**
 * Fails, before any request about the object, when the provider's key belongs to another team than
 * the one recorded in the object's state: that team cannot see it, so a read would call it gone and
 * a delete would remove nothing. Objects with no recorded team are not checked.
 */
export async function assertTeam(client: SecOpsClient, recorded: unknown, what: string): Promise<void> {
  if (typeof recorded !== "string" || recorded === "") return;
  const team = await teamOf(client);
  if (team === recorded) return;
  throw new SecOpsSafetyError(
    ErrorCodes.WRONG_TEAM,
    `${what} belongs to team ${recorded}, but this provider's API key is for team ${team}; nothing was sent. Configure the provider of this resource with a key of team ${recorded} (to move the object to team ${team}, create it there and delete it with team ${recorded}'s key)`,
  );
}

/**
 * Diff (also run by preview, maybe without a key) checks the team when the key's team can be had;
 * when it cannot, the operation that follows checks it before sending anything.
 */
export async function sameTeamIfKnown(ctx: ResourceContext, recorded: unknown, what: string): Promise<void> {
  if (typeof recorded !== "string" || recorded === "") return;
  const client = await ctx.client().catch(() => undefined);
  const team = client && (await teamOf(client).catch(() => undefined));
  if (team !== undefined && client) await assertTeam(client, recorded, what);
}
