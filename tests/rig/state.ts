/**
 * The offline runner's state file: resources with their inputs and outputs, and the creates in
 * flight (written before each create, so a killed runner leaves them for the next run to settle).
 * Written atomically (a temporary file renamed over the old one) once per step; within a step each
 * resource's change is appended to a journal (`<state>.journal`), replayed if the step never finished.
 */
import { existsSync, readFileSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { replayJournal } from "./journal";
import { PENDING_ID_PREFIX } from "../../provider/resources/framework/runtime";
import type { ProviderProcess } from "./host";
import { loadResource, storeResource, type State, type StateResource, type StoredState } from "./records";

export type { PendingCreate, State, StateResource } from "./records";

/** Reads the state file and replays its journal (a step that did not finish): an empty state when none. */
export function readState(path: string): State {
  const state: State = { version: 1, resources: [] };
  const providers: Record<string, string> = {};
  if (existsSync(path)) {
    const stored = JSON.parse(readFileSync(path, "utf8")) as StoredState | State;
    Object.assign(providers, (stored as StoredState).providers ?? {});
    state.resources = stored.resources.map((r) => loadResource(r, providers));
    if (stored.pending?.length) state.pending = stored.pending.map((p) => loadResource(p, providers));
    if (stored.pendingDeletes?.length)
      state.pendingDeletes = stored.pendingDeletes.map((r) => loadResource(r, providers));
  }
  replayJournal(`${path}.journal`, state, providers);
  return state;
}

/** Writes the state file atomically (each provider once) and drops the journal it supersedes. */
export function writeState(path: string, state: State): number {
  const providers: Record<string, string> = {};
  const stored: StoredState = {
    version: 2,
    providers,
    resources: state.resources.map((r) => storeResource(r, providers)),
    ...(state.pending?.length ? { pending: state.pending.map((p) => storeResource(p, providers)) } : {}),
    ...(state.pendingDeletes?.length
      ? { pendingDeletes: state.pendingDeletes.map((r) => storeResource(r, providers)) }
      : {}),
  };
  const text = `${JSON.stringify(stored)}\n`;
  const tmp = `${path}.tmp`;
  writeFileSync(tmp, text);
  renameSync(tmp, path);
  rmSync(`${path}.journal`, { force: true });
  return Buffer.byteLength(text);
}

/** Positions by URN of a resources array, kept by upsert (rebuilt when the array changed otherwise). */
const positions = new WeakMap<StateResource[], Map<string, number>>();

/** Adds or replaces the resource with the same URN: by key, not by scanning (1,000 creates stay linear). */
export function upsert(state: State, r: StateResource): void {
  const list = state.resources;
  let index = positions.get(list);
  if (!index || index.size !== list.length || (index.has(r.urn) && list[index.get(r.urn)!]?.urn !== r.urn)) {
    index = new Map(list.map((x, i) => [x.urn, i]));
    positions.set(list, index);
  }
  const i = index.get(r.urn);
  if (i !== undefined) list[i] = r;
  else {
    index.set(r.urn, list.length);
    list.push(r);
  }
}

/** A host error as a user reads it: gRPC's status prefix dropped, the message-size limit named. */
export function errorText(err: unknown): string {
  const e = err as { code?: number; details?: string; message?: string };
  // grpc-js: code 8 is RESOURCE_EXHAUSTED (a message over the 400 MiB limit the engine also uses).
  if (e?.code === 8)
    return `the inputs are too large to send to the provider (over the gRPC message limit): ${e.details ?? e.message}`;
  return String(e?.details || e?.message || err).replace(/^(Error: )?\d+ [A-Z_]+: /, "");
}

/** A provider's gRPC status error (grpc-js `ServiceError`) as a plain error with its text alone. */
export function withoutRpcFraming(err: unknown): unknown {
  const e = err as { code?: unknown; details?: unknown };
  const rpc = typeof e?.code === "number" && typeof e.details === "string";
  return rpc ? new Error(errorText(err), { cause: err }) : err;
}

/**
 * Settles creates a dead runner left in flight: the provider's delete of a pending id removes what the
 * interrupted create made, if anything, so the create that follows makes exactly one. Settled intents
 * leave `state.pending`; returns the URNs that could not be settled (they stay pending), with the reason.
 */
export async function settlePendingCreates(
  state: State,
  resolve: (ref: { type: string; provider?: string }) => Promise<ProviderProcess>,
): Promise<Map<string, string>> {
  const unsettled = new Map<string, string>();
  for (const p of [...(state.pending ?? [])]) {
    try {
      // With __provider: the host loads the provider from the properties it is given.
      const host = await resolve({ type: p.type, provider: p.providerUrn });
      await host.delete(`${PENDING_ID_PREFIX}${p.at}`, p.urn, p.inputs);
      state.pending = state.pending?.filter((x) => x !== p);
    } catch (err) {
      unsettled.set(p.urn, errorText(err));
    }
  }
  if (!state.pending?.length) delete state.pending;
  return unsettled;
}

/**
 * Deletes the objects replaces left behind (their delete failed). Deleted ones leave
 * `state.pendingDeletes`; returns why each of the others is still there.
 */
export async function settlePendingDeletes(
  state: State,
  resolve: (ref: { type: string; provider?: string }) => Promise<ProviderProcess>,
): Promise<string[]> {
  const failures: string[] = [];
  for (const old of [...(state.pendingDeletes ?? [])]) {
    try {
      await (
        await resolve({ type: old.type, provider: old.providerUrn })
      ).delete(old.id, old.urn, old.outputs);
      state.pendingDeletes = state.pendingDeletes?.filter((x) => x !== old);
    } catch (err) {
      failures.push(`${old.urn} (replaced object ${old.id}, still to delete): ${errorText(err)}`);
    }
  }
  if (!state.pendingDeletes?.length) delete state.pendingDeletes;
  return failures;
}

/**
 * Settles what an earlier run left (creates in flight, replaced objects still to delete), then
 * `save`s; fails when a replaced object still cannot be deleted. Returns the unsettled creates.
 */
export async function settleLeftovers(
  state: State,
  resolve: (ref: { type: string; provider?: string }) => Promise<ProviderProcess>,
  save: () => void,
): Promise<Map<string, string>> {
  const unsettled = state.pending?.length
    ? await settlePendingCreates(state, resolve)
    : new Map<string, string>();
  const leftovers = await settlePendingDeletes(state, resolve);
  save();
  if (leftovers.length)
    throw new Error(`objects replaced earlier could not be deleted yet: ${leftovers.join("; ")}`);
  return unsettled;
}
