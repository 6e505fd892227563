/**
 * The records of the runner's state and how the file stores them: each serialized provider once (by
 * hash), put back into inputs and outputs when read. Shared by the state file and its journal.
 */
import { createHash } from "node:crypto";

/** One resource in the state file. */
export interface StateResource {
  urn: string;
  type: string;
  name: string;
  id: string;
  inputs: Record<string, unknown>;
  outputs: Record<string, unknown>;
  /** A native resource's explicit provider (its URN); absent for the default provider and dynamic resources. */
  providerUrn?: string;
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
  /** As in {@link StateResource}. */
  providerUrn?: string;
}

/** The state file. */
export interface State {
  version: 1;
  resources: StateResource[];
  /** Creates in flight when the state was last written (present only while there are some). */
  pending?: PendingCreate[];
  /**
   * Objects a replace superseded whose delete failed: kept, as the engine keeps them (`delete: true`),
   * and deleted first by the next up or destroy (present only while there are some).
   */
  pendingDeletes?: StateResource[];
}

/**
 * The file keeps each serialized provider once (`providers`, by hash) instead of twice per resource;
 * {@link readState} puts `__provider` back into inputs and outputs, so callers see the shape above.
 */
export interface StoredState {
  version: 2;
  providers: Record<string, string>;
  resources: Array<StateResource & { provider?: string }>;
  pending?: Array<PendingCreate & { provider?: string }>;
  pendingDeletes?: Array<StateResource & { provider?: string }>;
}

const providerHash = (text: string) => createHash("sha256").update(text).digest("hex").slice(0, 16);

/** Moves `__provider` out of a record into `providers`; returns the record without it and the hash. */
export function stripProvider(o: Record<string, unknown>, providers: Record<string, string>) {
  const { __provider, ...rest } = o;
  if (typeof __provider !== "string") return { rest, hash: undefined };
  const hash = providerHash(__provider);
  providers[hash] = __provider;
  return { rest, hash };
}

export function storeResource<
  T extends { inputs: Record<string, unknown>; outputs?: Record<string, unknown> },
>(r: T, providers: Record<string, string>): T & { provider?: string } {
  const inputs = stripProvider(r.inputs, providers);
  const outputs = r.outputs === undefined ? undefined : stripProvider(r.outputs, providers);
  const hash = inputs.hash ?? outputs?.hash;
  return {
    ...r,
    inputs: inputs.rest,
    ...(outputs ? { outputs: outputs.rest } : {}),
    ...(hash ? { provider: hash } : {}),
  };
}

export function loadResource<
  T extends { inputs: Record<string, unknown>; outputs?: Record<string, unknown> },
>(r: T & { provider?: string }, providers: Record<string, string>): T {
  const { provider, ...rest } = r;
  const text = provider === undefined ? undefined : providers[provider];
  if (text === undefined) return rest as unknown as T;
  return {
    ...rest,
    inputs: { ...r.inputs, __provider: text },
    ...(r.outputs ? { outputs: { ...r.outputs, __provider: text } } : {}),
  } as unknown as T;
}
