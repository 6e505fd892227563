/**
 * The offline runner's state file: resources with their inputs and outputs, and the creates in
 * flight (written before each create, so a killed runner leaves them for the next run to settle).
 * Written atomically (a temporary file renamed over the old one).
 */
import { existsSync, readFileSync, renameSync, writeFileSync } from "node:fs";
import { PENDING_ID_PREFIX } from "../resources/runtime";
import type { DynamicProviderHost } from "./host";

/** One resource in the state file. */
export interface StateResource {
  urn: string;
  type: string;
  name: string;
  id: string;
  inputs: Record<string, unknown>;
  outputs: Record<string, unknown>;
}

/**
 * A create that was sent and whose answer was never recorded (the runner died mid-create). Written
 * before the create, removed once its outcome is in the state; settled on the next up, refresh or
 * destroy before anything else happens to that resource (as Pulumi's pending operations are).
 */
export interface PendingCreate {
  urn: string;
  type: string;
  name: string;
  inputs: Record<string, unknown>;
  /** When the create was started (ISO 8601). */
  at: string;
}

/** The state file. */
export interface State {
  version: 1;
  resources: StateResource[];
  /** Creates in flight when the state was last written (present only while there are some). */
  pending?: PendingCreate[];
}

/** Reads the state file (an empty state when there is none). */
export function readState(path: string): State {
  if (!existsSync(path)) return { version: 1, resources: [] };
  return JSON.parse(readFileSync(path, "utf8")) as State;
}

/** Writes the state file atomically. */
export function writeState(path: string, state: State): void {
  const tmp = `${path}.tmp`;
  writeFileSync(tmp, `${JSON.stringify(state, null, 2)}\n`);
  renameSync(tmp, path);
}

/** Adds or replaces the resource with the same URN. */
export function upsert(state: State, r: StateResource): void {
  const i = state.resources.findIndex((x) => x.urn === r.urn);
  if (i >= 0) state.resources[i] = r;
  else state.resources.push(r);
}

/** A host error as a user reads it: gRPC's status prefix dropped, the message-size limit named. */
export function errorText(err: unknown): string {
  const e = err as { code?: number; details?: string; message?: string };
  // grpc-js: code 8 is RESOURCE_EXHAUSTED (a message over the 4 MiB default limit).
  if (e?.code === 8)
    return `the inputs are too large to send to the provider (over the 4 MiB gRPC message limit): ${e.details ?? e.message}`;
  return String(e?.details ?? e?.message ?? err).replace(/^\d+ [A-Z_]+: /, "");
}

/**
 * Settles creates a dead runner left in flight: the provider's delete of a pending id removes what the
 * interrupted create made, if anything, so the create that follows makes exactly one. Settled intents
 * leave `state.pending`; returns the URNs that could not be settled (they stay pending), with the reason.
 */
export async function settlePendingCreates(
  state: State,
  host: DynamicProviderHost,
): Promise<Map<string, string>> {
  const unsettled = new Map<string, string>();
  for (const p of [...(state.pending ?? [])]) {
    try {
      // With __provider: the host loads the provider from the properties it is given.
      await host.delete(`${PENDING_ID_PREFIX}${p.at}`, p.urn, p.inputs);
      state.pending = state.pending?.filter((x) => x !== p);
    } catch (err) {
      unsettled.set(p.urn, errorText(err));
    }
  }
  if (!state.pending?.length) delete state.pending;
  return unsettled;
}
