/**
 * The argument helpers every command line shares, `secops` and the simulator's `secops-sim` alike:
 * usage errors, option parsers, help examples. Only commander here: the simulator package compiles
 * this module into its own and must not pull in the client.
 */
import { InvalidArgumentError, Option, type Command } from "commander";

/** A mistake on the user's side, found before the API was reached (exit 2). */
export class UsageError extends Error {}

export const collect = (v: string, acc: string[]) => [...acc, v];

/** A repeatable option whose every value is one of `allowed` (listed in its help), named in the error. */
export function oneOf(flags: string, what: string, allowed: readonly string[]): Option {
  const name = flags.split(" ")[0];
  return new Option(flags, `${what}, repeatable (${allowed.join(", ")})`)
    .default([])
    .argParser((v: string, acc: string[]) => {
      if (!allowed.includes(v))
        throw new InvalidArgumentError(`${name} must be one of ${allowed.join(", ")}`);
      return [...acc, v];
    });
}

/** A non-negative whole number option, named in the error. */
export const count = (name: string) => (v: string) => {
  const n = Number(v);
  if (!Number.isInteger(n) || n < 0) throw new InvalidArgumentError(`${name} must be a non-negative integer`);
  return n;
};

/** A `true` or `false` option value, named in the error. */
export const bool = (name: string) => (v: string) => {
  if (v !== "true" && v !== "false") throw new InvalidArgumentError(`${name} must be true or false`);
  return v === "true";
};

/** `command` and every command under it hand their exits to the caller as errors. */
export function exitOverridden(command: Command): Command {
  command.exitOverride();
  command.commands.forEach(exitOverridden);
  return command;
}

/** Help text shown after a leaf command's options. */
export const example = (...lines: string[]) => `\nExample:\n${lines.map((l) => `  $ ${l}`).join("\n")}\n`;

/** A value as the `--json` output of a command prints it. */
export const json = (v: unknown) => `${JSON.stringify(v, null, 2)}\n`;
