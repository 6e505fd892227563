/** `secops drift` (the report: ../drift/report.ts); exit codes in its help. */
import { writeFile } from "node:fs/promises";
import { Option, type Command } from "commander";
import { SecOpsClient } from "../client/client";
import { ErrorCodes, isSecOpsError } from "../client/errors";
import { DRIFT_FORMATS, MARKDOWN_LIMITS, formatDrift, type DriftFormat } from "../drift/format";
import { driftReport, isClean, type DriftKey } from "../drift/report";
import { DriftInputError, readIgnore, readStack, type StackExport } from "../drift/state";
import { UsageError, collect, count, example } from "./args";
import { baseUrlOf, checkOutFile, keyFrom } from "./common";

/** The command's result, for an exit code other than 0 without an error message. */
export class ExitStatus extends Error {
  constructor(readonly code: number) {
    super(`exit ${code}`);
  }
}

/** Long, with lower-case letters and digits: a key rather than a variable name (those are upper case). */
const looksLikeKey = (v: string) => v.length >= 20 && /[a-z]/.test(v) && /[0-9]/.test(v);

/** The keys named by --key-env: the variables must hold a value (never printed). */
function keysFrom(names: string[]): DriftKey[] {
  const unique = [...new Set(names.length ? names : ["SECOPS_API_KEY"])];
  return unique.map((name) => {
    const valid = /^[A-Za-z_][A-Za-z0-9_]*$/.test(name);
    const key = valid ? process.env[name] : undefined;
    // Never echo what may be a key given by mistake: a value no variable name looks like.
    if (!key && (!valid || looksLikeKey(name)))
      throw new UsageError("--key-env takes the name of an environment variable that holds a key, not a key");
    if (!key) throw new UsageError(`--key-env ${name}: environment variable ${name} is empty or not set`);
    return { name, key };
  });
}

/**
 * The exports `--state` names: the stack reported on, then the others. One stack given twice would
 * report its every rule as held by "another" stack: refused (an export with no resource names none).
 */
function stacksOf(files: string[]): StackExport[] {
  const stacks = files.map(readStack);
  for (const [i, { name }] of stacks.entries()) {
    const first = stacks.findIndex((s) => s.name === name);
    if (first < i && name.includes("/"))
      throw new UsageError(
        `--state ${files[i]} is an export of ${name}, as --state ${files[first]} is: give each stack once`,
      );
  }
  return stacks;
}

/** The options of `secops drift`. */
interface DriftCliOptions {
  /** The stack reported on, then the team's other stacks. */
  state: string[];
  keyEnv: string[];
  ignore?: string;
  format: DriftFormat;
  maxRows: number;
  jsonOut?: string;
}

/**
 * The variable whose key the API refused (asked only after a refusal): the first refused again, as the
 * report stops at the first; all names when every key passes now.
 */
async function refusedKey(keys: DriftKey[], baseUrl: string): Promise<string> {
  for (const { name, key } of keys) {
    const c = new SecOpsClient({ apiKey: key, baseUrl });
    try {
      await c.getIdentity();
    } catch (err) {
      if (isSecOpsError(err, ErrorCodes.AUTH)) return name;
    } finally {
      await c.close();
    }
  }
  return keys.map((k) => k.name).join(" or $");
}

/** `secops drift`. */
export function driftCommand(root: Command, out: NodeJS.WritableStream): void {
  root
    .command("drift")
    .description(
      "report managed objects in sync, drifted, deleted or held twice, and live rules no resource holds (made by hand), per team",
    )
    .requiredOption(
      "--state <file>",
      "`pulumi stack export` output (`pulumi stack export --file <path>`); repeat for the teams' other stacks: the first is the stack reported on, the rules the others hold are theirs (managed by <stack>)",
      (v: string, acc: string[] | undefined) => [...(acc ?? []), v],
    )
    .option(
      "--key-env <name>",
      "environment variable holding one team's API key (repeat for each team; default SECOPS_API_KEY)",
      collect,
      [],
    )
    .option(
      "--ignore <file>",
      "rule ids or search globs to leave out of the failure, one per line with `# reason`",
    )
    .addOption(new Option("--format <format>", "output format").choices(DRIFT_FORMATS).default("table"))
    .option(
      "--max-rows <n>",
      `markdown: rows per table (the rest: see --json-out); the report stays under ${MARKDOWN_LIMITS.bytes} bytes`,
      count("--max-rows"),
      MARKDOWN_LIMITS.rows,
    )
    .option("--json-out <file>", "also write the whole report as JSON to this file (replaced if it exists)")
    .addHelpText(
      "after",
      `\nExit codes: 0 clean, 3 drift, duplicates, copies or unmanaged rules found (or a team in the state without a key), 1 error, 2 usage.\n${example(
        "pulumi stack export --file stack.json && secops drift --state stack.json",
        "secops drift --state stack.json --key-env TEAM_A_KEY --key-env TEAM_B_KEY --format markdown --json-out drift.json >> $GITHUB_STEP_SUMMARY",
      )}`,
    )
    .action(async (o: DriftCliOptions, cmd: Command) => {
      const baseUrl = baseUrlOf(cmd);
      const keys = keysFrom(o.keyEnv);
      // A report file replaces the last run's (it is an output of CI), but its folder must exist.
      if (o.jsonOut) await checkOutFile(o.jsonOut, true, "drift.json", "--json-out");
      try {
        const [state] = o.state;
        const [{ resources }, ...others] = stacksOf(o.state);
        const ignore = o.ignore ? readIgnore(o.ignore) : [];
        const progress = (line: string) =>
          process.stderr.isTTY && process.stderr.write(`secops drift: ${line}\n`);
        const report = await driftReport(resources, {
          baseUrl,
          keys,
          ignore,
          ignoreFile: o.ignore,
          progress,
          state,
          others,
        });
        if (o.jsonOut) await writeFile(o.jsonOut, formatDrift(report, "json"));
        out.write(formatDrift(report, o.format, { rows: o.maxRows, jsonFile: o.jsonOut }));
        if (!isClean(report)) throw new ExitStatus(3);
      } catch (err) {
        if (err instanceof DriftInputError) throw new UsageError(err.message);
        if (isSecOpsError(err, ErrorCodes.AUTH)) keyFrom(await refusedKey(keys, baseUrl));
        throw err;
      }
    });
}
