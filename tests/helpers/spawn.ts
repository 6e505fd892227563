/** Spawns a built command (dist/) and collects its output and exit code. */
import { spawn } from "node:child_process";
import { existsSync } from "node:fs";
import { join } from "node:path";

export const ROOT = join(__dirname, "..", "..");

/** The offline runner (tests/rig) bundled for child processes by `npm test` (scripts/build-rig.js). */
export const RIG = join(ROOT, ".rig", "index.js");

/** The path of a built file; fails clearly when `npm run build` has not run. */
export function built(rel: string): string {
  const p = join(ROOT, "dist", rel);
  if (!existsSync(p)) throw new Error(`${p} is missing: run \`npm run build\` before these tests`);
  return p;
}

/** The `secops-sim` command of the simulator package, as `npm run build` compiles it. */
export function builtSim(): string {
  const p = join(ROOT, "simulator", "dist", "simulator", "cli.js");
  if (!existsSync(p)) throw new Error(`${p} is missing: run \`npm run build\` before these tests`);
  return p;
}

export interface Ran {
  code: number | null;
  stdout: string;
  stderr: string;
}

/**
 * Node's flag for the processes these tests start that evaluate Pulumi programs (the offline runner,
 * the demos, a consumer's program). On Node 26, Pulumi's closure serializer requires every built-in
 * module to recognise captured ones, `node:ffi` among them, and Node warns "ExperimentalWarning: FFI is
 * an experimental feature" at that require: a warning of the platform, not of this package, that a
 * test asserting an empty stderr would take for ours. Disabled the documented way (node --disable-warning),
 * for these child processes only; the jest workers get it from global-setup.js.
 */
export const NO_EXPERIMENTAL_WARNING = "--disable-warning=ExperimentalWarning";

/** Runs `node <file> ...args` with extra env (ExperimentalWarning disabled: see above). */
export function run(
  file: string,
  args: string[],
  env: Record<string, string | undefined> = {},
): Promise<Ran> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [NO_EXPERIMENTAL_WARNING, file, ...args], {
      env: { ...process.env, ...env },
      cwd: ROOT,
    });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (c) => (stdout += c));
    child.stderr.on("data", (c) => (stderr += c));
    child.on("error", reject);
    child.on("close", (code) => resolve({ code, stdout, stderr }));
  });
}

/**
 * One plugin process (the built bin/) for a test file: started before its tests, closed after them.
 * Call at the top of the file; the returned function gives the running plugin.
 */
export function pluginPerFile(): () => import("../rig").ProviderProcess {
  built("plugin/pulumi-resource-secops.js");
  jest.setTimeout(30_000);
  let plugin: import("../rig").ProviderProcess | undefined;
  beforeAll(async () => {
    const { NativePluginProcess } = await import("../rig");
    plugin = await NativePluginProcess.start();
  });
  afterAll(async () => {
    await plugin?.close();
  });
  return () => {
    if (!plugin) throw new Error("the plugin is not started yet");
    return plugin;
  };
}
