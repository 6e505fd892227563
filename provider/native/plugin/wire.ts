/**
 * Secrets as the engine sends them (signature objects): implementations see plain values, and what
 * arrived secret is wrapped again in what goes back, so a secret input stays secret in state.
 */
import { SECRET_SIG, SIG_KEY } from "../../resources/framework/markers";

/** True for a secret signature object. */
export function isSecret(v: unknown): v is { value: unknown } {
  return v !== null && typeof v === "object" && (v as Record<string, unknown>)[SIG_KEY] === SECRET_SIG;
}

/** A value wrapped as a secret. */
export const secretOf = (value: unknown): Record<string, unknown> => ({ [SIG_KEY]: SECRET_SIG, value });

/** Plain values, and the top-level properties that held a secret anywhere inside. */
export interface Unwrapped {
  values: Record<string, unknown>;
  secrets: Set<string>;
}

/** `v` without secret wrappers; `found.secret` set when it had one. */
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
