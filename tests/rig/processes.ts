/**
 * Starting provider processes as the engine does, under a watchdog: Pulumi's dynamic-provider host and
 * this package's native plugin. Each prints its port on the first stdout line; a gRPC client of it is
 * a {@link ProviderProcess}.
 */
import { spawn, type ChildProcessWithoutNullStreams } from "node:child_process";
import { closeSync, existsSync, openSync, readSync } from "node:fs";
import { dirname, join } from "node:path";
import type { ResourceProviderClient } from "@pulumi/pulumi/proto/provider_grpc_pb";
import { proto } from "../../provider/native/plugin/proto";
import { ProviderProcess } from "./host";

/**
 * Runs the provider (argv[1], arguments after it) and ends it when the runner dies. The provider holds
 * the API key and serves unauthenticated gRPC on 127.0.0.1, so it must not outlive its runner: the
 * runner keeps this process's stdin open, and the pipe closes when the runner exits for any reason.
 */
const WATCHDOG = `
const [entry, ...args] = process.argv.slice(1);
const die = () => process.exit(0);
process.stdin.on("end", die);
process.stdin.on("close", die);
process.stdin.on("error", die);
process.stdin.resume();
process.argv = [process.argv[0], entry, ...args];
require(entry);
`;

/** Whether `file` is a native executable (ELF), such as the release archive's, rather than a script. */
function isNative(file: string): boolean {
  const fd = openSync(file, "r");
  try {
    const head = Buffer.alloc(4);
    readSync(fd, head, 0, 4, 0);
    return head.equals(Buffer.from([0x7f, 0x45, 0x4c, 0x46]));
  } finally {
    closeSync(fd);
  }
}

/**
 * Spawns `entry args...` in `cwd` and connects to the port it prints: a script under the watchdog
 * (with this Node), a native executable as the engine does (the caller closes it).
 */
export async function spawnProvider(
  entry: string,
  args: string[],
  cwd: string,
  env: NodeJS.ProcessEnv = process.env,
): Promise<[ChildProcessWithoutNullStreams, ResourceProviderClient]> {
  const [command, argv] = isNative(entry)
    ? [entry, args]
    : [process.execPath, ["-e", WATCHDOG, entry, ...args]];
  const child = spawn(command, argv, { cwd, env, stdio: ["pipe", "pipe", "pipe"] });
  let early = "";
  child.stderr.on("data", (c) => (early += String(c)));
  const port = await new Promise<string>((resolve, reject) => {
    child.stdout.once("data", (c) => resolve(String(c).split("\n")[0].trim()));
    child.once("exit", (code) => reject(new Error(`provider ${entry} exited (${code}): ${early}`)));
  });
  const { grpc, providerGrpc } = proto();
  const client = new providerGrpc.ResourceProviderClient(
    `127.0.0.1:${port}`,
    grpc.credentials.createInsecure(),
    {
      "grpc.max_receive_message_length": 400 * 1024 * 1024,
    },
  );
  return [child, client];
}

/** Pulumi's own dynamic-provider host, the process the engine starts for dynamic resources. */
export class DynamicProviderHost extends ProviderProcess {
  /**
   * Starts the host with `cwd` as its working directory: the serialized provider's `require`s
   * resolve from there, as they do from a Pulumi program's directory.
   */
  static async start(cwd: string): Promise<DynamicProviderHost> {
    const entry = require.resolve("@pulumi/pulumi/cmd/dynamic-provider/index.js");
    const [child, client] = await spawnProvider(entry, ["127.0.0.1:0"], cwd);
    return new DynamicProviderHost(child, client);
  }
}

/** The nearest folder above `dir` holding the plugin's `bin/` (the rig runs from tests/rig or .rig). */
function repositoryRoot(dir: string): string {
  while (!existsSync(join(dir, "bin", "pulumi-resource-secops")) && dirname(dir) !== dir) dir = dirname(dir);
  return dir;
}

/** This package's native plugin, `pulumi-resource-secops`, one process per provider instance. */
export class NativePluginProcess extends ProviderProcess {
  /** The plugin executable shipped in the package's `bin/`. */
  static readonly executable = join(repositoryRoot(__dirname), "bin", "pulumi-resource-secops");

  /**
   * Starts the plugin as the engine does (`pulumi-resource-secops [engineAddress]`). `executable`
   * defaults to this package's; a test passes an installed copy's.
   */
  static async start(
    options: {
      cwd?: string;
      engineAddress?: string;
      executable?: string;
      flags?: string[];
      /** The plugin's environment (default: this process's). */
      env?: NodeJS.ProcessEnv;
    } = {},
  ): Promise<NativePluginProcess> {
    // As the engine writes them: flags first, the engine's address last.
    const args = [...(options.flags ?? []), ...(options.engineAddress ? [options.engineAddress] : [])];
    const [child, client] = await spawnProvider(
      options.executable ?? NativePluginProcess.executable,
      args,
      options.cwd ?? process.cwd(),
      options.env,
    );
    return new NativePluginProcess(child, client);
  }
}
