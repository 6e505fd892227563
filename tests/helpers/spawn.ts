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
