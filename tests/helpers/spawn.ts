/** Spawns a built command (dist/) and collects its output and exit code. */
import { spawn } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";

export const ROOT = join(__dirname, "..", "..");

/** The path of a built file; fails clearly when `npm run build` has not run. */
export function built(rel: string): string {
  const p = join(ROOT, "dist", rel);
  if (!existsSync(p)) throw new Error(`${p} is missing: run \`npm run build\` before these tests`);
  return p;
}

export interface Ran {
  code: number | null;
  stdout: string;
  stderr: string;
  /** Peak resident memory of the child in KiB (Linux /proc sampling), when sampled. */
  peakRssKiB: number;
}

/** Runs `node <file> ...args` with extra env; samples its RSS every 20 ms when `sampleRss`. */
export function run(
  file: string,
  args: string[],
  env: Record<string, string | undefined> = {},
  sampleRss = false,
): Promise<Ran> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [file, ...args], { env: { ...process.env, ...env }, cwd: ROOT });
    let stdout = "";
    let stderr = "";
    let peak = 0;
    child.stdout.on("data", (c) => (stdout += c));
    child.stderr.on("data", (c) => (stderr += c));
    const timer = sampleRss
      ? setInterval(() => {
          try {
            const m = /VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${child.pid}/status`, "utf8"));
            if (m) peak = Math.max(peak, Number(m[1]));
          } catch {
            /* exited */
          }
        }, 20)
      : undefined;
    child.on("error", reject);
    child.on("close", (code) => {
      if (timer) clearInterval(timer);
      resolve({ code, stdout, stderr, peakRssKiB: peak });
    });
  });
}

/**
 * One plugin process (the built bin/) for a test file: started before its tests, closed after them.
 * Call at the top of the file; the returned function gives the running plugin.
 */
export function pluginPerFile(): () => import("pulumi-secops/testing").ProviderProcess {
  built("plugin/pulumi-resource-secops.js");
  jest.setTimeout(30_000);
  let plugin: import("pulumi-secops/testing").ProviderProcess | undefined;
  beforeAll(async () => {
    const { NativePluginProcess } = await import("pulumi-secops/testing");
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
