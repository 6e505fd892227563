/**
 * Machinery shared by every resource implementation: pending ids, Pulumi's partial-failure error,
 * check helpers and the 403 explanation.
 */
import type * as pulumi from "@pulumi/pulumi";
import type { SecOpsClient } from "../client/client";
import { ErrorCodes, SecOpsApiError, SecOpsError, SecOpsSafetyError, isSecOpsError } from "../client/errors";
import { roles } from "../client/routes";
import { closest } from "../client/options";

/** The value Pulumi sends for an input that is unknown during preview. */
const UNKNOWN = "04da6b54-80e4-46f7-96ec-b56ff0331ba9";

/** The properties of `o` that hold a value (neither undefined nor null). */
export const definedOnly = (o: Record<string, unknown>): Record<string, unknown> =>
  Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined && v !== null));

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

/** A check failure list builder. */
export class Failures {
  readonly list: pulumi.dynamic.CheckFailure[] = [];

  /**
   * Inputs must be an object, and every property a known input: a misspelt name is named, with the
   * closest known one, instead of being silently ignored. Returns false when `news` is not an object.
   */
  known(news: unknown, resource: string, names: readonly string[]): news is Record<string, unknown> {
    if (news === null || typeof news !== "object" || Array.isArray(news)) {
      this.list.push({ property: "", reason: `the inputs of ${resource} must be an object` });
      return false;
    }
    for (const key of Object.keys(news)) {
      if (key === "__provider" || names.includes(key)) continue;
      const near = closest(key, names);
      this.list.push({
        property: key,
        reason: `${key} is not an input of ${resource}${near ? `; did you mean ${near}?` : ""}`,
      });
    }
    return true;
  }

  /** A string no longer than `max` characters (a documented input limit). */
  maxLength(inputs: Record<string, unknown>, property: string, max: number): void {
    const v = inputs[property];
    if (typeof v === "string" && v.length > max)
      this.list.push({ property, reason: `${property} is ${v.length} characters long; the limit is ${max}` });
  }

  /** Records a failure for `property` unless the value is a preview unknown. */
  expect(ok: boolean, property: string, value: unknown, reason: string): void {
    if (!ok && !isUnknown(value)) this.list.push({ property, reason });
  }

  /** A required non-empty string without control characters (a NUL byte would be stored as sent). */
  string(inputs: Record<string, unknown>, property: string): void {
    const v = inputs[property];
    this.expect(
      typeof v === "string" && v.trim() !== "",
      property,
      v,
      `${property} must be a non-empty string`,
    );
    // eslint-disable-next-line no-control-regex
    if (typeof v === "string" && /[\u0000-\u001f\u007f]/.test(v))
      this.list.push({
        property,
        reason: `${property} must not contain control characters (such as NUL or a line break)`,
      });
  }

  /** An optional boolean. */
  optionalBoolean(inputs: Record<string, unknown>, property: string): void {
    const v = inputs[property];
    this.expect(
      v === undefined || v === null || typeof v === "boolean",
      property,
      v,
      `${property} must be a boolean`,
    );
  }
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
