/**
 * `pulumi-resource-secops [engineAddress]`: started by the engine (or the offline runner), it serves
 * the ResourceProvider service and prints its port alone on the first line of stdout.
 */
import { startPluginServer } from "./server";

export async function main(argv: string[]): Promise<void> {
  // The engine may pass flags (e.g. --logtostderr, -v=9) besides its own address.
  const engineAddress = argv.find((a) => !a.startsWith("-"));
  const server = await startPluginServer({ engineAddress });
  process.stdout.write(`${server.port}\n`);
  const stop = () => void server.close().finally(() => process.exit(0));
  process.once("SIGTERM", stop);
  process.once("SIGINT", stop);
}
