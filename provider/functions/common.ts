/**
 * Connection for data-source functions. They run in the program process (dynamic providers have
 * no invoke), so they share one client per connection settings and are cheap to call many times.
 */
import type * as pulumi from "@pulumi/pulumi";
import type { SecOpsClient } from "../client/client";
import { SecOpsInputError } from "../client/errors";
import { didYouMean } from "../client/options";
import { notNonEmptyString } from "../client/settings";
import { clientFor, resolveSettings, type ConnectionOptions } from "../config";

/**
 * The program SDK, loaded when a program calls a function, not when this module loads: the native
 * plugin shares the functions' bodies and must start without it (issue 22).
 */
export const sdk = (): typeof pulumi => require("@pulumi/pulumi") as typeof pulumi;

/** Each field of `T` may be a `pulumi.Input` (an Output, a promise or a plain value). */
export type InputFields<T> = { [K in keyof T]: pulumi.Input<T[K]> };

/** Options every function takes: explicit connection settings (else stack config, else env). */
export type FunctionOptions = ConnectionOptions;

/**
 * Explicit options are checked, never ignored: a wrong type, an empty string or an unknown name fails
 * with SECOPS_INVALID_INPUT instead of silently falling back to another key.
 */
function checkFunctionOptions(opts: unknown): FunctionOptions {
  if (opts === undefined) return {};
  if (opts === null || typeof opts !== "object" || Array.isArray(opts))
    throw new SecOpsInputError("opts", "must be an object with apiKey and/or baseUrl");
  for (const [key, value] of Object.entries(opts)) {
    if (key !== "apiKey" && key !== "baseUrl") {
      throw new SecOpsInputError(`opts.${key}`, `is not an option${didYouMean(key, ["apiKey", "baseUrl"])}`);
    }
    if (value !== undefined && notNonEmptyString(value))
      throw new SecOpsInputError(`opts.${key}`, "must be a non-empty string");
  }
  return opts as FunctionOptions;
}

/** The shared client for explicit options > `secops:apiKey`/`secops:baseUrl` > SECOPS_* env. */
export function functionClient(opts?: FunctionOptions): SecOpsClient {
  const explicit = checkFunctionOptions(opts);
  const config = new (sdk().Config)("secops");
  return clientFor(resolveSettings(explicit, (key) => config.get(key.slice("secops:".length))));
}
