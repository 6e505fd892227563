/** The plugin executable's entry (bundled into dist/plugin/): argv[2..] are the engine's arguments. */
import { main } from "./main";

main(process.argv.slice(2)).catch((err: unknown) => {
  process.stderr.write(`pulumi-resource-secops: ${err instanceof Error ? err.message : String(err)}\n`);
  process.exit(1);
});
