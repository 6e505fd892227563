/**
 * The create-intent journal: before a create's PUT is sent, what the team's list showed for the same
 * field and search is written to a small file; once the create's outcome is handed back (an id, a
 * partial failure or a definite failure) the file is removed. When the PUT answered with an id, the
 * file keeps that id (`made`, with the resource's URN when the front-end knows it) until a later call
 * about that id (diff, read, update, delete) shows that whoever asked for the create holds it: the
 * answer itself can be lost when the engine or runner dies before recording it.
 *
 * A file whose process is dead is what a crash (kill -9, a lost machine session, an engine that
 * stopped waiting) left: the next create or settle of the same rule finds it and can prove which
 * rule, if any, that PUT made, because every rule the list showed before the PUT is excluded, and
 * every rule another intent says it made.
 *
 * Where: `SECOPS_INTENT_DIR`, else `<PULUMI_HOME or ~/.pulumi>/secops/intents`, one folder per team and
 * in it one per field and search (a hash), so a create reads only the intents of its own rule: with
 * one flat folder per team, an `up` of 1,000 new dynamic rules (whose answers stay journaled until a
 * later call) listed a folder growing to 1,000 files once per create (half a second of the host's time).
 * Files an earlier version left flat in the team's folder are still found (listed once per process).
 * A journal that cannot be written is reported once and creates go on without it (a crash then leaves
 * an orphan that `secops drift` lists, never a wrong delete).
 */
import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { createHash, randomBytes } from "node:crypto";

/** What one create recorded before its PUT. */
export interface CreateIntent {
  field: string;
  search: string;
  /** Ids of the rules with this field and search that the list showed before the PUT was sent. */
  before: string[];
  /** When the PUT was about to be sent (ISO 8601). */
  at: string;
  /** The resource's URN, when the front-end knows it (the native plugin does, the dynamic host not). */
  urn?: string;
  /** The id the PUT answered with, kept until a later call about that id confirms it is held. */
  made?: string;
}

interface Stored extends CreateIntent {
  pid: number;
  token: string;
  /** When the writing process started, so a later process given the same pid is not taken for it. */
  start?: string;
}

/**
 * This process's token: a pid reused by a later process is not mistaken for this one. Made with the
 * first intent.
 */
let token: string | undefined;
const processToken = (): string => (token ??= randomBytes(6).toString("hex"));

/** The user's home folder; node:os loads only when it is needed (no SECOPS_INTENT_DIR or PULUMI_HOME). */
const homeDir = (): string => (require("node:os") as typeof import("node:os")).homedir();

/** The journal's folder. */
export function intentDir(env: NodeJS.ProcessEnv = process.env): string {
  if (env.SECOPS_INTENT_DIR) return env.SECOPS_INTENT_DIR;
  return join(env.PULUMI_HOME || join(homeDir(), ".pulumi"), "secops", "intents");
}

const safe = (team: string) => team.replace(/[^A-Za-z0-9_.-]/g, "_");
const ruleKey = (field: string, search: string) =>
  createHash("sha256").update(`${field}\0${search}`).digest("hex").slice(0, 24);

/**
 * When process `pid` started (Linux: clock ticks since boot, from /proc), "zombie" for one that has
 * ended but was not reaped (a container without an init that reaps, whose parent was killed), or
 * undefined where /proc cannot tell.
 */
function started(pid: number): string | undefined {
  let stat: string;
  try {
    stat = readFileSync(`/proc/${pid}/stat`, "utf8");
  } catch {
    return undefined;
  }
  // pid (comm) state ppid ... starttime is the 22nd field; comm may hold spaces and parentheses.
  const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  return fields[0] === "Z" || fields[0] === "X" ? "zombie" : fields[19];
}

const START = started(process.pid);

/** True while the process that wrote an intent runs (the same process, not a later one given its pid). */
function alive(pid: number, token: string, start: string | undefined): boolean {
  if (pid === process.pid) return token === processToken();
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

/**
 * Writes an intent file whole or not at all (a new file renamed over it): a process killed mid-write
 * leaves the intent it had, never an empty file. Rewriting in place (truncate, then write) lost the
 * proof of a PUT already sent whenever a kill -9 fell between the two.
 */
function replace(file: string, stored: Stored): void {
  const partial = `${file}.partial`;
  writeFileSync(partial, JSON.stringify(stored), { mode: 0o600 });
  renameSync(partial, file);
}

/** An open intent: `made` once the PUT answered with an id, else `close` once the outcome is known. */
export interface OpenIntent {
  made(id: string): void;
  close(): void;
}

/** An intent a dead process left, with `settle()` to remove it once its outcome is known. */
export type LeftIntent = CreateIntent & { settle(): void };

/** The journal of one process (every team, every rule). */
export class IntentJournal {
  #seq = 0;
  #failed: string | undefined;
  /** Per team: the flat files an earlier version left, by rule key (read once; never added to). */
  readonly #legacy = new Map<string, Map<string, string[]>>();

  constructor(
    private readonly dir: string = intentDir(),
    private readonly onFailure: (message: string) => void = () => undefined,
  ) {}

  /**
   * Records an intent before its PUT. Written synchronously: a create waits for it anyway, and writing
   * through libuv's thread pool measured no faster here, for one create or for an `up` of 1,000.
   */
  open(team: string, intent: CreateIntent): OpenIntent {
    const folder = join(this.dir, safe(team), ruleKey(intent.field, intent.search));
    const file = join(folder, `${process.pid}.${processToken()}.${++this.#seq}.json`);
    const stored: Stored = {
      ...intent,
      pid: process.pid,
      token: processToken(),
      ...(START ? { start: START } : {}),
    };
    try {
      mkdirSync(folder, { recursive: true, mode: 0o700 });
      replace(file, stored);
    } catch (err) {
      this.fail(err);
      return { made: () => undefined, close: () => undefined };
    }
    const close = () => rmSync(file, { force: true });
    const made = (id: string) => {
      try {
        replace(file, { ...stored, made: id });
      } catch (err) {
        this.fail(err);
        close();
      }
    };
    return { made, close };
  }

  /**
   * Intents for this field and search, newest first: those dead processes left (`left`), and the ids
   * any intent, live or dead, says its PUT made (`made`: rules some resource holds or will hold, never
   * candidates for another create).
   */
  scan(team: string, field: string, search: string): { left: LeftIntent[]; made: Set<string> } {
    const left: LeftIntent[] = [];
    const made = new Set<string>();
    for (const { file, stored } of this.read(team, field, search)) {
      if (stored.made) made.add(stored.made);
      if (alive(stored.pid, stored.token, stored.start)) continue;
      const { before, at, urn } = stored;
      const intent: LeftIntent = { field, search, before, at, settle: () => rmSync(file, { force: true }) };
      if (urn) intent.urn = urn;
      if (stored.made) intent.made = stored.made;
      left.push(intent);
    }
    return { left: left.sort((a, b) => b.at.localeCompare(a.at)), made };
  }

  /** A later call about rule `id` shows it is held: the intents that made it are removed. */
  confirm(team: string, field: unknown, search: unknown, id: string): void {
    if (typeof field !== "string" || typeof search !== "string") return;
    for (const { file, stored } of this.read(team, field, search))
      if (stored.made === id) rmSync(file, { force: true });
  }

  /** Intents for this field and search that dead processes left (see {@link scan}). */
  left(team: string, field: string, search: string): LeftIntent[] {
    return this.scan(team, field, search).left;
  }

  private read(team: string, field: string, search: string): Array<{ file: string; stored: Stored }> {
    const key = ruleKey(field, search);
    const folder = join(this.dir, safe(team), key);
    let files: string[];
    try {
      files = readdirSync(folder)
        .filter((n) => n.endsWith(".json"))
        .map((n) => join(folder, n));
    } catch {
      files = [];
    }
    files.push(...(this.legacy(team).get(key) ?? []));
    const found: Array<{ file: string; stored: Stored }> = [];
    for (const file of files) {
      try {
        const stored = JSON.parse(readFileSync(file, "utf8")) as Stored;
        if (stored.field === field && stored.search === search) found.push({ file, stored });
      } catch {
        // Gone meanwhile, or written by a process that died mid-write: nothing was sent after it.
      }
    }
    return found;
  }

  /** Flat files of an earlier version in the team's folder (`<key>.<pid>.<token>.<seq>.json`). */
  private legacy(team: string): Map<string, string[]> {
    let byKey = this.#legacy.get(team);
    if (byKey) return byKey;
    byKey = new Map();
    const folder = join(this.dir, safe(team));
    let names: string[] = [];
    try {
      names = readdirSync(folder).filter((n) => n.endsWith(".json"));
    } catch {
      // no folder yet: nothing left
    }
    for (const name of names) {
      const key = name.slice(0, name.indexOf("."));
      byKey.set(key, [...(byKey.get(key) ?? []), join(folder, name)]);
    }
    this.#legacy.set(team, byKey);
    return byKey;
  }

  /** Why the journal cannot be written, if it cannot. */
  get failure(): string | undefined {
    return this.#failed;
  }

  private fail(err: unknown): void {
    if (this.#failed) return;
    this.#failed = `secops: the create-intent journal in ${this.dir} cannot be written (${(err as Error).message}); creates go on, but one interrupted by a crash cannot be recovered (set SECOPS_INTENT_DIR to a writable folder)`;
    this.onFailure(this.#failed);
  }
}

let shared: IntentJournal | undefined;

/** The process's journal (created on first use, in the folder the environment names then). */
export function intentJournal(): IntentJournal {
  shared ??= new IntentJournal();
  return shared;
}
