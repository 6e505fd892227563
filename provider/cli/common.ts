/**
 * What every `secops` command shares: the client from flags and environment, CLI-worded errors.
 * The argument helpers (usage errors, option parsers, help examples) are in `args.ts`.
 */
import type { Command } from "commander";
import { SecOpsClient } from "../client/client";
import { ErrorCodes, type SecOpsError } from "../client/errors";
import { DriftInputError } from "../drift/state";
import { UsageError } from "./args";

/** Where the CLI took its key from, for messages (never the key itself). */
let keySource = "$SECOPS_API_KEY";

/**
 * Names the environment variable a failure's key came from, when a command holds several keys
 * (`secops drift --key-env A --key-env B`): the messages below then name that one.
 */
export function keyFrom(variable: string): void {
  keySource = `$${variable}`;
}

/** The API's URL: `--base-url`, or else $SECOPS_BASE_URL. */
export function baseUrlOf(cmd: Command): string {
  const baseUrl = (cmd.optsWithGlobals() as { baseUrl?: string }).baseUrl ?? process.env.SECOPS_BASE_URL;
  if (!baseUrl) throw new UsageError("no base URL: pass --base-url <url> or set SECOPS_BASE_URL");
  return baseUrl;
}

export function client(cmd: Command): SecOpsClient {
  const { apiKeyEnv } = cmd.optsWithGlobals() as { apiKeyEnv: string };
  const apiKey = process.env[apiKeyEnv];
  keySource = `$${apiKeyEnv}`;
  if (!apiKey)
    throw new UsageError(
      `no API key: environment variable ${apiKeyEnv} is empty or not set (set ${apiKeyEnv}, or name another variable with --api-key-env)`,
    );
  const baseUrl = baseUrlOf(cmd);
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

/** Runs `read` (of a file the user named); a mistake in that file is a usage error, after `prefix`. */
export function usage<T>(prefix: string, read: () => T): T {
  try {
    return read();
  } catch (err) {
    if (err instanceof DriftInputError) throw new UsageError(`${prefix}${err.message}`);
    throw err;
  }
}
