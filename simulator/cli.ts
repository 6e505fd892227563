#!/usr/bin/env node
/** `secops-sim`: runs the local API simulator until Ctrl-C and prints its URL and API keys. */
import { Command, CommanderError, InvalidArgumentError } from "commander";
import { UsageError, count, example, exitOverridden } from "../provider/cli/args";
import { ctlCommand } from "./ctl";
import { createSimulator, parseFaultSpec, type SimulatorOptions } from "./index";
import { teams } from "./seed";

/**
 * This package's version (the same as pulumi-secops's). Read by the package's own name (its
 * "exports" lists package.json), which finds the file from the sources under jest and from dist/.
 */
const VERSION = (require("secops-sim/package.json") as { version: string }).version;

/** Set when the command started a simulator (it then serves until stopped). */
let serving = false;

/** A team of the seed, named in the error. */
function team(v: string) {
  const ids = teams().map((t) => t.id);
  if (!ids.includes(v)) throw new InvalidArgumentError(`--team must be one of ${ids.join(", ")}`);
  return v;
}

function faults(v: string) {
  try {
    parseFaultSpec(v);
    return v;
  } catch (e) {
    throw new InvalidArgumentError((e as Error).message);
  }
}

/**
 * Builds the command. `secops sim` is the same command: `secops` lists it as `sim` and hands its
 * command line to {@link simMain} as `secops sim` (the name its help shows).
 */
export function simCommand(name = "secops-sim"): Command {
  const x = name === "sim" ? "secops sim" : name;
  return (
    new Command(name)
      .description("Run a local stand-in for the Security Operations Service API")
      .version(VERSION)
      // Options after `ctl` are its own (`ctl users --json` is not the simulator's --json).
      .enablePositionalOptions()
      .option("-p, --port <port>", "port to listen on (0 picks a free one)", count("port"), 0)
      .option("--host <host>", "interface to listen on", "127.0.0.1")
      .option("--strict-spec", "answer routes the spec does not show as unknown, ignore hidden names", false)
      .option("--seed <n>", "seed of the generated data and fault draws", count("seed"), 1)
      .option("--state <file>", "persist changes to this JSON file and load it on start")
      .option("--faults <spec>", "faults, e.g. '429:0.1@PUT /endpoint,reset:0.05' or a JSON array", faults)
      .option("--big-case <n>", "add case 'case-big' with n detections", count("big-case"))
      .option("--csv-rows <n>", "make the CSV export at least n rows long", count("csv-rows"))
      .option(
        "--page-base <n>",
        "number of the first page of threat indicators: 0 or 1",
        count("page-base"),
        1,
      )
      .option("--max-page-size <n>", "largest page of threat indicators served", count("max-page-size"), 500)
      .option("--rules <n>", "a big tenant: n rules made by hand in --team (bulk-1-*, ...)", count("rules"))
      .option("--users <n>", "a big tenant: n more directory users in --team", count("users"))
      .option("--team <team>", "the team --rules and --users fill", team, "team-acme")
      .option("--control-token <token>", "fixed control token (default: random)")
      .option("--json", "print the connection details as one JSON line", false)
      .addHelpText(
        "after",
        example(`${x} --port 8080`, `${x} --rules 4000 --users 500 --team team-client-1 --state big.json`),
      )
      .addCommand(ctlCommand(x))
      .action(serve)
  );
}

/** The command's options, as commander parses them: the simulator's own, and where to keep its state. */
type SimOptions = SimulatorOptions & { strictSpec: boolean; seed: number; state?: string; json: boolean };

/** Starts the simulator with the command's options and serves until SIGINT or SIGTERM. */
async function serve({ state, json, ...o }: SimOptions): Promise<void> {
  serving = true;
  const sim = await createSimulator({ ...o, statePath: state });
  const info = {
    url: sim.url,
    apiKeys: sim.apiKeys,
    controlToken: sim.controlToken,
    strictSpec: o.strictSpec,
  };
  if (json) process.stdout.write(`${JSON.stringify(info)}\n`);
  else {
    process.stdout.write(
      [
        `secops-sim ${VERSION} listening on ${sim.url} (strict-spec ${o.strictSpec ? "on" : "off"}, seed ${o.seed})`,
        `  export SECOPS_BASE_URL=${sim.url}`,
        `  export SECOPS_API_KEY=${sim.apiKeys.admin}   # ADMIN of team-acme`,
        `  analyst key:                ${sim.apiKeys.analyst}`,
        `  viewer key:                 ${sim.apiKeys.viewer}`,
        `  service-provider admin key: ${sim.apiKeys.serviceProviderAdmin}`,
        `  client team admin keys:     ${sim.apiKeys.client1Admin} (team-client-1), ${sim.apiKeys.client2Admin} (team-client-2)`,
        `  export SECOPS_SIM_TOKEN=${sim.controlToken}   # control token: secops-sim ctl, x-sim-control for /__sim/`,
        "Press Ctrl-C to stop.",
        "",
      ].join("\n"),
    );
  }
  const stop = () => void sim.close().then(() => process.exit(0));
  process.once("SIGINT", stop);
  process.once("SIGTERM", stop);
}

/**
 * Runs `secops-sim` with `argv`; resolves with the exit status of a command that ended (usage errors
 * 2, as every command of the README; help and version 0) or undefined while the simulator serves.
 */
export async function simMain(argv: string[], name = "secops-sim"): Promise<number | undefined> {
  const command = simCommand(name);
  exitOverridden(command);
  try {
    await command.parseAsync(argv);
    return serving ? undefined : 0;
  } catch (err) {
    if (err instanceof CommanderError) return err.exitCode === 0 ? 0 : 2;
    process.stderr.write(`${name}: ${(err as Error).message}\n`);
    return err instanceof UsageError ? 2 : 1;
  }
}

if (require.main === module)
  void simMain(process.argv).then((code) => {
    // exitCode, not exit(): a long listing piped to another program is written out first.
    if (code !== undefined) process.exitCode = code;
  });
