/**
 * Which process wrote a file the providers share on one machine (the create-intent journal, the
 * run's declarations), and whether it still runs: a later process given the same pid is not taken for
 * the writer. The shared folder: `SECOPS_INTENT_DIR`, else `<PULUMI_HOME or ~/.pulumi>/secops/intents`.
 */
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { randomBytes } from "node:crypto";

/** This process's token (see {@link writer}). */
export const TOKEN = randomBytes(6).toString("hex");

/** The folder the providers of this machine share. */
export function intentDir(env: NodeJS.ProcessEnv = process.env): string {
  if (env.SECOPS_INTENT_DIR) return env.SECOPS_INTENT_DIR;
  // node:os loads only when it is needed.
  const home = () => (require("node:os") as typeof import("node:os")).homedir();
  return join(env.PULUMI_HOME || join(home(), ".pulumi"), "secops", "intents");
}

/** A name that is safe as one path segment. */
export const safe = (name: string) => name.replace(/[^A-Za-z0-9_.-]/g, "_");

/** `f()`, or undefined when it throws (a file not there, gone meanwhile or torn). */
export function tried<T>(f: () => T): T | undefined {
  try {
    return f();
  } catch {
    return undefined;
  }
}

/** Fields of `/proc/<pid>/stat` after the command name (state is [0], ppid [1], start time [19]). */
export function procStat(pid: number): string[] | undefined {
  const stat = tried(() => readFileSync(`/proc/${pid}/stat`, "utf8"));
  // pid (comm) state ppid ...: comm may hold spaces and parentheses.
  return stat === undefined ? undefined : stat.slice(stat.lastIndexOf(")") + 2).split(" ");
}

/** When process `pid` started (Linux /proc), "zombie" for one ended but not reaped, or undefined. */
function started(pid: number): string | undefined {
  const fields = procStat(pid);
  if (fields === undefined) return undefined;
  return fields[0] === "Z" || fields[0] === "X" ? "zombie" : fields[19];
}

const START = started(process.pid);

/** The writer of a shared file: this process, told apart from a later one given its pid. */
export const writer = () => ({ pid: process.pid, token: TOKEN, ...(START ? { start: START } : {}) });

/** True while the process that wrote a shared file runs (the same process, not a later one given its pid). */
export function alive(pid: number, token: string, start: string | undefined): boolean {
  if (pid === process.pid) return token === TOKEN;
  const now = started(pid);
  if (now === "zombie") return false;
  if (now !== undefined && start !== undefined) return now === start;
  if (existsSync("/proc/self/stat")) return now !== undefined; // Linux: no /proc entry, no process
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === "EPERM";
  }
}
