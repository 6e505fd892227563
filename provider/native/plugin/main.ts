/** The plugin's main: serves the ResourceProvider service and prints its port alone on stdout's line 1. */
import { VERSION } from "../../version";
import { startPluginServer } from "./server";

/** Flags the engine passes that take a value (`buildPluginArguments` in the engine's plugin.go). */
const WITH_VALUE = new Set(["--tracing", "-tracing"]);

/** How long SIGTERM waits for calls in flight before the process ends anyway. */
const STOP_GRACE_MS = 2_000;

/** The plugin's `--help`. */
export const USAGE = `usage: pulumi-resource-secops [--logtostderr] [-v=N] [--tracing <endpoint>] [engine-address]

The secops resource provider plugin for Pulumi. The Pulumi engine starts it: it serves Pulumi's
ResourceProvider gRPC service on 127.0.0.1 and prints its port on the first line of stdout.
  --version  print the version and exit
  --help     print this and exit
`;

/** The engine's address: the last argument that is neither a flag nor a flag's value. */
export function engineAddressOf(argv: readonly string[]): string | undefined {
  let address: string | undefined;
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    if (WITH_VALUE.has(a)) i++;
    else if (!a.startsWith("-")) address = a;
  }
  return address;
}

/** How often the plugin looks for its parent (the engine) gone. */
const ORPHAN_CHECK_MS = 500;

/** Runs the plugin with the engine's arguments until SIGTERM, SIGINT or its engine is gone. */
export async function main(argv: string[]): Promise<void> {
  if (argv.includes("--version")) return void process.stdout.write(`${VERSION}\n`);
  if (argv.includes("--help") || argv.includes("-h")) return void process.stdout.write(USAGE);
  const engineAddress = engineAddressOf(argv);
  const server = await startPluginServer({ engineAddress });
  process.stdout.write(`${server.port}\n`);
  // Calls in flight are ended (an unknown create outcome stays journaled for the next run to settle).
  let stopping = false;
  const stop = () => {
    if (stopping) return;
    stopping = true;
    setTimeout(() => process.exit(0), STOP_GRACE_MS).unref();
    void server.stop().finally(() => process.exit(0));
  };
  process.once("SIGTERM", stop);
  process.once("SIGINT", stop);
  // An orphan (its engine killed) would keep its journal entries live, so the next run could not adopt
  // what its creates made: it stops once its parent is gone. Not in attach mode (no engine address).
  if (!engineAddress) return;
  const parent = process.ppid;
  const orphaned = setInterval(() => {
    if (process.ppid === parent) return;
    clearInterval(orphaned);
    stop();
  }, ORPHAN_CHECK_MS).unref();
}
