/**
 * What every `secops` command shares: the client from flags and environment, CLI-worded errors, and
 * `--out <file>`, checked before the API is asked so that a user's mistake (exit 2) costs no request.
 * The argument helpers (usage errors, option parsers, help examples) are in `args.ts`.
 */
import { stat, writeFile } from "node:fs/promises";
import { dirname, join, resolve, sep } from "node:path";
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

/** Fails with a usage error when `path` is a folder, its folder is missing, or it exists without `force`. */
export async function checkOutFile(
  path: string,
  force: boolean,
  example: string,
  option = "--out",
): Promise<void> {
  const info = await stat(path).catch(() => undefined);
  if (info?.isDirectory() || path.endsWith("/") || path.endsWith(sep))
    throw new UsageError(
      `${option} ${path}: is a folder; name a file, e.g. ${option} ${join(path, example)}`,
    );
  const folder = dirname(resolve(path));
  if (!(await stat(folder).catch(() => undefined))?.isDirectory())
    throw new UsageError(`${option} ${path}: no such folder ${folder}`);
  if (info && !force) throw new UsageError(`${option} ${path}: the file exists; pass --force to replace it`);
}

/** Writes `--out`, keeping an existing file unless `force`; a failure is said as the check says it. */
export async function writeOutFile(
  path: string,
  text: string,
  force: boolean,
  example: string,
): Promise<void> {
  try {
    await writeFile(path, text, { flag: force ? "w" : "wx" });
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code ?? "";
    if (code === "EEXIST" || code === "ENOENT") await checkOutFile(path, force, example);
    if (["EACCES", "EISDIR", "ENOTDIR"].includes(code))
      throw new UsageError(`--out ${path}: cannot be written (${code})`);
    throw err;
  }
}
