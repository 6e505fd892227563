/**
 * The plugin executable's entry, bundled into dist/plugin/pulumi-resource-secops.js (run by
 * bin/pulumi-resource-secops and embedded in the release archive's single executable). In both,
 * `process.argv[2..]` are the engine's arguments.
 */
import { setFlagsFromString } from "node:v8";
import { main } from "./main";

// V8's optimizing tiers off, before anything has run hot: TurboFan, and Maglev (on by default from
// Node 24); the interpreter and Sparkplug stay. The plugin is protocol glue waiting on the engine and
// the API. TurboFan's code and the compiler memory it leaves behind cost 14 MB of RSS (9 MB private)
// per plugin over 6,000 calls (Node 22). Maglev, which already compiles during the start, costs 0.8 MB
// of an idle plugin on Node 26 (3.3 MB if turned off on the command line, which neither launch path
// allows: the single executable's code cache is refused with the flag). Without both, those calls
// take 19-26% more CPU (issue 22, README "Plugin cost per team", where `npm run bench` measures both
// ways). SECOPS_PLUGIN_TURBOFAN=1 keeps both.
if (process.env.SECOPS_PLUGIN_TURBOFAN !== "1") {
  setFlagsFromString("--no-turbofan");
  setFlagsFromString("--no-maglev");
}

main(process.argv.slice(2)).catch((err: unknown) => {
  process.stderr.write(`pulumi-resource-secops: ${err instanceof Error ? err.message : String(err)}\n`);
  process.exit(1);
});
