/** What every `secops` command shares: the client from flags and environment, CLI-worded errors, help examples. */
import type { Command } from "commander";
import { InvalidArgumentError } from "commander";
import { SecOpsClient } from "../client/client";
import { ErrorCodes, type SecOpsError } from "../client/errors";

/** A mistake on the user's side, found before the API was reached (exit 2). */
export class UsageError extends Error {}

export const collect = (v: string, acc: string[]) => [...acc, v];
export const oneOf =
  (name: string, allowed: readonly string[]) =>
  (v: string, acc: string[] = []) => {
    if (!allowed.includes(v)) throw new InvalidArgumentError(`${name} must be one of ${allowed.join(", ")}`);
    return [...acc, v];
  };

/** A `true` or `false` option value, named in the error. */
export const bool = (name: string) => (v: string) => {
  if (v !== "true" && v !== "false") throw new InvalidArgumentError(`${name} must be true or false`);
  return v === "true";
};

/** Where the CLI took its key from, for messages (never the key itself). */
let keySource = "$SECOPS_API_KEY";

/**
 * Names the environment variable a failure's key came from, when a command holds several keys
 * (`secops drift --key-env A --key-env B`): the messages below then name that one.
 */
export function keyFrom(variable: string): void {
  keySource = `$${variable}`;
}

export function client(cmd: Command): SecOpsClient {
  const o = cmd.optsWithGlobals() as { baseUrl?: string; apiKeyEnv: string };
  const apiKey = process.env[o.apiKeyEnv];
  keySource = `$${o.apiKeyEnv}`;
  if (!apiKey)
    throw new UsageError(
      `no API key: environment variable ${o.apiKeyEnv} is empty or not set (set ${o.apiKeyEnv}, or name another variable with --api-key-env)`,
    );
  const baseUrl = o.baseUrl ?? process.env.SECOPS_BASE_URL;
  if (!baseUrl) throw new UsageError("no base URL: pass --base-url <url> or set SECOPS_BASE_URL");
  try {
    return new SecOpsClient({ apiKey, baseUrl });
  } catch (err) {
    throw new UsageError(cliMessage(err as Error));
  }
}

/** A message for a CLI user: option names instead of API field names. */
export function cliMessage(err: Error): string {
  const e = err as SecOpsError;
  if (e.code === ErrorCodes.INVALID_INPUT && e.field === "filter.serviceProviderScope")
    return e.message.replace(/^filter\.serviceProviderScope: /, "--scope: ");
  if (e.code === ErrorCodes.CONFIG && e.field === "apiKey")
    return `the API key from ${keySource} is not usable: ${e.message}`;
  if (e.code === ErrorCodes.CONFIG && e.field === "baseUrl")
    return `--base-url / SECOPS_BASE_URL: ${e.message}`;
  if (e.code === ErrorCodes.AUTH)
    return `${e.message}: the API key from ${keySource} was refused; check that it is a valid team API key`;
  return e.message;
}

/** Help text shown after a leaf command's options. */
export const example = (...lines: string[]) => `\nExample:\n${lines.map((l) => `  $ ${l}`).join("\n")}\n`;
