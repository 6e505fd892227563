/**
 * Values as the engine sends them: secrets are signature objects (when the provider answered
 * acceptSecrets), unknowns during preview are a fixed string. Implementations see plain values; what
 * arrived secret is wrapped again in what goes back, so a secret input stays secret in state.
 */
import type * as sdk from "@pulumi/pulumi/runtime/rpc";

/**
 * The signature key and value of a secret (Pulumi's `sig.Secret`), typed by @pulumi/pulumi's own
 * constants (`runtime/rpc`): a value that differs from the SDK's does not compile. Only their types
 * are imported: that module is the program SDK (about 180 modules, 90 ms more at start than the
 * stubs), which the plugin bundle must not reach.
 */
export const SIG_KEY: typeof sdk.specialSigKey = "4dabf18193072939515e22adb298388d";
export const SIG_SECRET: typeof sdk.specialSecretSig = "1b47061264138c4ac30d75fd1eb44270";

/** The value the engine sends for an input that is unknown during preview. */
export { UNKNOWN } from "../../resources/definition";

/** True for a secret signature object. */
export function isSecret(v: unknown): v is { value: unknown } {
  return v !== null && typeof v === "object" && (v as Record<string, unknown>)[SIG_KEY] === SIG_SECRET;
}

/** A value wrapped as a secret. */
export const secretOf = (value: unknown): Record<string, unknown> => ({ [SIG_KEY]: SIG_SECRET, value });

/** Plain values, and the top-level properties that held a secret anywhere inside. */
export interface Unwrapped {
  values: Record<string, unknown>;
  secrets: Set<string>;
}

function strip(v: unknown, found: { secret: boolean }): unknown {
  if (isSecret(v)) {
    found.secret = true;
    return strip(v.value, found);
  }
  if (Array.isArray(v)) return v.map((x) => strip(x, found));
  if (v !== null && typeof v === "object")
    return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, strip(x, found)]));
  return v;
}

/** Removes secret wrappers, remembering which top-level properties carried one. */
export function unwrap(bag: Record<string, unknown>, also: Iterable<string> = []): Unwrapped {
  const secrets = new Set(also);
  const values: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(bag)) {
    const found = { secret: false };
    values[k] = strip(v, found);
    if (found.secret) secrets.add(k);
  }
  return { values, secrets };
}

/** Wraps the named properties as secrets. */
export function wrap(bag: Record<string, unknown>, secrets: ReadonlySet<string>): Record<string, unknown> {
  if (secrets.size === 0) return bag;
  return Object.fromEntries(
    Object.entries(bag).map(([k, v]) => [k, secrets.has(k) && v !== undefined ? secretOf(v) : v]),
  );
}
