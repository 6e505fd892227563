/**
 * `secops drift`: which rules a stack manages, which drifted or were deleted out of band, which live
 * objects two resources of the state hold (duplicate), and which live rules no resource holds (made by
 * hand), for every team whose key is given.
 * Exit codes: 0 clean, 3 drift, duplicates, copies or unmanaged rules found (or a team of the state
 * left unchecked), 1 error, 2 usage.
 */
import { Option, type Command } from "commander";
import { DRIFT_FORMATS, formatDrift, type DriftFormat } from "../drift/format";
import { readIgnore } from "../drift/ignore";
import { driftReport, isClean, type DriftKey } from "../drift/report";
import { DriftInputError, readManaged } from "../drift/state";
import { UsageError, collect, example } from "./common";

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

async function run(
  o: { state: string; keyEnv: string[]; ignore?: string; format: DriftFormat },
  cmd: Command,
  out: NodeJS.WritableStream,
) {
  const { baseUrl: flag } = cmd.optsWithGlobals() as { baseUrl?: string };
  const baseUrl = flag ?? process.env.SECOPS_BASE_URL;
  if (!baseUrl) throw new UsageError("no base URL: pass --base-url <url> or set SECOPS_BASE_URL");
  const keys = keysFrom(o.keyEnv);
  try {
    const resources = readManaged(o.state);
    const ignore = o.ignore ? readIgnore(o.ignore) : [];
    const progress = process.stderr.isTTY
      ? (line: string) => process.stderr.write(`secops drift: ${line}\n`)
      : undefined;
    const report = await driftReport(resources, {
      baseUrl,
      keys,
      ignore,
      ignoreFile: o.ignore,
      progress,
      state: o.state,
    });
    out.write(formatDrift(report, o.format));
    if (!isClean(report)) throw new ExitStatus(3);
  } catch (err) {
    if (err instanceof DriftInputError) throw new UsageError(err.message);
    throw err;
  }
}

/** `secops drift`. */
export function driftCommand(root: Command, out: NodeJS.WritableStream): void {
  root
    .command("drift")
    .description(
      "report managed objects in sync, drifted, deleted or held twice, and live rules no resource holds (made by hand), per team",
    )
    .requiredOption("--state <file>", "`pulumi stack export` output, or the offline runner's state file")
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
    .addHelpText(
      "after",
      `${example(
        "pulumi stack export --file stack.json && secops drift --state stack.json",
        "secops drift --state stack.json --key-env TEAM_A_KEY --key-env TEAM_B_KEY --format markdown >> $GITHUB_STEP_SUMMARY",
      )}\nExit codes: 0 clean, 3 drift, duplicates, copies or unmanaged rules found (or a team in the state without a key), 1 error, 2 usage.\n`,
    )
    .action((o, cmd: Command) => run(o, cmd, out));
}
