/** Connection for data-source functions: they run in the program's process, one client per settings. */
import type * as pulumi from "@pulumi/pulumi";
import type { SecOpsClient } from "../client/client";
import { SecOpsInputError } from "../client/errors";
import { didYouMean } from "../client/options";
import { notNonEmptyString } from "../client/settings";
import { clientFor, resolveSettings, type ConnectionOptions } from "../config";

/** The program SDK, loaded at the first call: the native plugin shares these bodies and starts without it. */
export const sdk = (): typeof pulumi => require("@pulumi/pulumi") as typeof pulumi;

/** Each field of `T` may be a `pulumi.Input` (an Output, a promise or a plain value). */
export type InputFields<T> = { [K in keyof T]: pulumi.Input<T[K]> };

/** Options every function takes: explicit connection settings (else stack config, else env). */
export type FunctionOptions = ConnectionOptions;

/** Explicit options fail when wrong (SECOPS_INVALID_INPUT), never silently falling back to another key. */
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
