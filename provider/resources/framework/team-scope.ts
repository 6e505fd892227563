/**
 * One live object per team, across the provider processes of one engine run. The engine starts a
 * plugin process per provider instance (and one dynamic-provider host), so a Check sees only its own
 * provider's declarations. Each Check of a known object writes a small file under the run's folder
 * (the engine's address names the run), one folder per team and object; the Check then reads the
 * folder: another live process's resource declaring the object under another provider of the team is
 * a clash. The engine checks resources one at a time, so of two clashing resources the one checked
 * second always sees the first.
 */
import { mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { createHash } from "node:crypto";
import { alive, intentDir, safe, tried, writer } from "./processes";

/** One resource's declaration of an object in this run. */
export interface Declaration {
  urn: string;
  /** How messages name its provider (`the secops provider "client1"`). */
  provider: string;
  /** True when the resource is in the stack's state already (Check had old inputs). */
  inState: boolean;
  /** True when it adopts an existing object (adoptExisting). */
  adopts?: boolean;
}

type Stored = Declaration & { pid: number; token: string; start?: string };

let run: string | undefined;

/** False only in the benchmark's variant bundle (scripts/bench-engine.js: what the check costs). */
declare const SECOPS_TEAM_SCOPE: boolean | undefined;

/** True when Check looks across the team (always, but in the benchmark's variant without it). */
export const teamScope = typeof SECOPS_TEAM_SCOPE === "undefined" || SECOPS_TEAM_SCOPE;

/** Names this process's engine run (its address); without one, declarations stay in the process. */
export function setEngineRun(address: string | undefined): void {
  run = address && address !== "" ? address : undefined;
}

/**
 * The engine address among a dynamic-provider host's arguments (`node <script> <address>`), where
 * the host is what runs this process; undefined elsewhere (tests calling the implementation).
 */
export function dynamicHostRun(argv: readonly string[] = process.argv): string | undefined {
  const script = argv[1] ?? "";
  if (!/dynamic-provider/.test(script)) return undefined;
  return [...argv.slice(2)].reverse().find((a) => /^[\w.[\]:-]+:\d+$/.test(a));
}

const hash = (text: string) => createHash("sha256").update(text).digest("hex").slice(0, 24);

/**
 * Records that `mine.urn` declares `object` of `team` in this run and returns the other live
 * declarations of it (none without an engine run, or when the folder cannot be used).
 */
export function declareInRun(team: string, object: string, mine: Declaration): Declaration[] {
  if (run === undefined) return [];
  const folder = join(intentDir(), "runs", hash(run), safe(team), hash(object));
  const file = join(folder, `${hash(mine.urn)}.${process.pid}.json`);
  const written = tried(() => {
    mkdirSync(folder, { recursive: true, mode: 0o700 });
    writeFileSync(file, JSON.stringify({ ...mine, ...writer() }), { mode: 0o600 });
    return true;
  });
  return written ? declaredInRun(team, object, mine.urn, true) : [];
}

/** Withdraws a declaration whose Check was refused: it holds nothing, and refuses no one else. */
export function withdrawFromRun(team: string, object: string, urn: string): void {
  if (run === undefined) return;
  const folder = join(intentDir(), "runs", hash(run), safe(team), hash(object));
  rmSync(join(folder, `${hash(urn)}.${process.pid}.json`), { force: true });
}

/**
 * The live declarations of `object` of `team` in this run by resources other than `urn` (any, when
 * it is not known), of other processes only with `elsewhere` (a process knows its own): a delete
 * leaves an object another resource of the run declares.
 */
export function declaredInRun(team: string, object: string, urn?: string, elsewhere = false): Declaration[] {
  if (run === undefined) return [];
  const folder = join(intentDir(), "runs", hash(run), safe(team), hash(object));
  const others: Declaration[] = [];
  for (const name of tried(() => readdirSync(folder)) ?? []) {
    const path = join(folder, name);
    const d = tried(() => JSON.parse(readFileSync(path, "utf8")) as Stored);
    if (!d || typeof d.urn !== "string" || typeof d.pid !== "number") continue;
    if (!alive(d.pid, d.token, d.start)) {
      rmSync(path, { force: true }); // a run that ended: not a declaration of this one
      continue;
    }
    if (d.urn !== urn && !(elsewhere && d.pid === process.pid)) others.push(d);
  }
  return others;
}
