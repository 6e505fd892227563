/** Connection for data-source functions: they run in the program's process, one client per settings. */
import type * as pulumi from "@pulumi/pulumi";
import type { SecOpsClient } from "../client/client";
import { SecOpsConfigError, SecOpsInputError, isSecOpsError } from "../client/errors";
import { didYouMean } from "../client/options";
import { notNonEmptyString } from "../client/settings";
import { clientFor, resolveSettings, unknownConfigKeys, type ConnectionOptions } from "../config";

/** The program SDK, loaded at the first call: the native plugin shares these bodies and starts without it. */
export const sdk = (): typeof pulumi => require("@pulumi/pulumi") as typeof pulumi;

/** Each field of `T` may be a `pulumi.Input` (an Output, a promise or a plain value). */
export type InputFields<T> = { [K in keyof T]: pulumi.Input<T[K]> };

/** Options every function takes: explicit connection settings (else stack config, else env). */
export type FunctionOptions = ConnectionOptions;

/**
 * The shared client for explicit options > `secops:apiKey`/`secops:baseUrl` > SECOPS_* env. Explicit
 * options fail when wrong (SECOPS_INVALID_INPUT), never silently falling back to another key.
 */
export function functionClient(opts?: FunctionOptions): SecOpsClient {
  const explicit: unknown = opts === undefined ? {} : opts;
  if (explicit === null || typeof explicit !== "object" || Array.isArray(explicit))
    throw new SecOpsInputError("opts", "must be an object with apiKey and/or baseUrl");
  for (const [key, value] of Object.entries(explicit)) {
    if (key !== "apiKey" && key !== "baseUrl") {
      throw new SecOpsInputError(`opts.${key}`, `is not an option${didYouMean(key, ["apiKey", "baseUrl"])}`);
    }
    if (value !== undefined && notNonEmptyString(value))
      throw new SecOpsInputError(`opts.${key}`, "must be a non-empty string");
  }
  const config = new (sdk().Config)("secops");
  const given = explicit as FunctionOptions;
  // A setting from stack config may be one misspelt there: name it rather than call it missing.
  if (!given.apiKey || !given.baseUrl) {
    const unknown = unknownConfigKeys(Object.keys(sdk().runtime.allConfig()));
    if (unknown.length) throw new SecOpsConfigError(`secops: ${unknown.join("; ")}`);
  }
  return clientFor(resolveSettings(given, (key) => config.get(key.slice("secops:".length))));
}

/**
 * An Output variant's call: a SecOpsError fails the program with its message alone (a RunError), not
 * as an unhandled exception with a stack trace (issue 56); only the engine sees an Output's failure,
 * so no caller loses its `code`.
 */
export async function outputCall<T>(call: () => Promise<T>): Promise<T> {
  try {
    return await call();
  } catch (err) {
    if (isSecOpsError(err)) throw new (sdk().RunError)(err.message);
    throw err;
  }
}
