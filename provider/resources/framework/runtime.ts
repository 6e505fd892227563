/** What every resource implementation shares: pending ids, partial failures, the team check, 403s. */
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
 * The id prefix of a create whose outcome is unknown, recorded so it is never forgotten: `diff`
 * replaces it, and its `delete` first removes what the interrupted create made, if anything.
 */
export const PENDING_ID_PREFIX = "pending:";

/** True for an id recorded by a create whose outcome is unknown. */
export const isPendingId = (id: unknown): boolean =>
  typeof id === "string" && id.startsWith(PENDING_ID_PREFIX);

/** A fresh pending id. */
export const pendingId = (): string => `${PENDING_ID_PREFIX}${new Date().toISOString()}`;

/** Pulumi's partial-failure error: the host records `id` and `properties` (nothing is orphaned). */
export function partialFailure(
  message: string,
  id: string,
  properties: Record<string, unknown>,
  inputs: Record<string, unknown>,
  cause: unknown,
): Error {
  const reason = cause instanceof Error ? cause.message : String(cause);
  // The host adds no __provider to a failed create's properties; the next operation needs it.
  return Object.assign(new Error(`${message}: ${reason}`, { cause }), {
    id,
    properties: { ...properties, __provider: inputs.__provider },
    // The engine prints the reasons, not the message: the user reads what was recorded and what is next.
    reasons: [`${message}: ${reason}`],
  });
}

/** A 403 on a write, with the key's role and the roles that may write (assumed); others pass through. */
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
 * The team a write goes to (see ResourceContext.writeTeam): never assumed. A lookup that fails refuses
 * the write, naming the cause; the next write looks again.
 */
export async function teamForWrite(ctx: ResourceContext, client: SecOpsClient): Promise<string> {
  if (ctx.writeTeam) return ctx.writeTeam(client);
  return teamOf(client).catch((err: unknown) => {
    throw teamUnverified(ctx.describe?.() ?? "the secops provider", err);
  });
}

/** The refusal of a write whose team could not be looked up (a 401 keeps its own error). */
export function teamUnverified(who: string, err: unknown): unknown {
  if (isSecOpsError(err, ErrorCodes.AUTH)) return err;
  const cause = err instanceof Error ? err.message : String(err);
  return new SecOpsSafetyError(
    ErrorCodes.TEAM_UNVERIFIED,
    `${who} writes only to a team it has looked up, and the lookup of its key's team failed (${cause}); nothing was written. Run the update again once GET /v1/auth/me answers`,
  );
}

/**
 * Fails before any request when the key's team is not the one recorded in state: that key cannot see
 * the object, so a read would call it gone and a delete remove nothing.
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

/** {@link assertTeam} for Diff (preview may lack a key): with the team unknown, the next operation checks. */
export async function sameTeamIfKnown(ctx: ResourceContext, recorded: unknown, what: string): Promise<void> {
  if (typeof recorded !== "string" || recorded === "") return;
  const client = await ctx.client().catch(() => undefined);
  const team = client && (await teamOf(client).catch(() => undefined));
  if (team !== undefined && client) await assertTeam(client, recorded, what);
}
