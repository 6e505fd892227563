/**
 * The create-intent journal: before a create's PUT is sent, what the team's list showed for the same
 * field and search is written to a small file; once the create's outcome is handed back (an id, a
 * partial failure, a definite failure) the file is removed. A file whose process is dead is what a
 * crash (kill -9, a lost machine session, an engine that stopped waiting) left: the next create or
 * settle of the same rule finds it and can prove which rule, if any, that PUT made, because every
 * rule the list showed before the PUT is excluded.
 *
 * Where: `SECOPS_INTENT_DIR`, else `<PULUMI_HOME or ~/.pulumi>/secops/intents`, one folder per team.
 * A journal that cannot be written is reported once and creates go on without it (a crash then leaves
 * an orphan that `secops drift` lists, never a wrong delete).
 */
import { createHash, randomBytes } from "node:crypto";
import { mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { homedir } from "node:os";
import { join } from "node:path";

/** What one create recorded before its PUT. */
export interface CreateIntent {
  field: string;
  search: string;
  /** Ids of the rules with this field and search that the list showed before the PUT was sent. */
  before: string[];
  /** When the PUT was about to be sent (ISO 8601). */
  at: string;
}

interface Stored extends CreateIntent {
  pid: number;
  token: string;
}

/** This process's token: a pid reused by a later process is not mistaken for this one. */
const TOKEN = randomBytes(6).toString("hex");

/** The journal's folder. */
export function intentDir(env: NodeJS.ProcessEnv = process.env): string {
  if (env.SECOPS_INTENT_DIR) return env.SECOPS_INTENT_DIR;
  return join(env.PULUMI_HOME || join(homedir(), ".pulumi"), "secops", "intents");
}

const safe = (team: string) => team.replace(/[^A-Za-z0-9_.-]/g, "_");
const ruleKey = (field: string, search: string) =>
  createHash("sha256").update(`${field}\0${search}`).digest("hex").slice(0, 24);

function alive(pid: number, token: string): boolean {
  if (pid === process.pid) return token === TOKEN;
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === "EPERM";
  }
}

/** An open intent: remove it once the create's outcome is known to whoever asked for the create. */
export interface OpenIntent {
  close(): void;
}

/** The journal of one process (every team, every rule). */
export class IntentJournal {
  #seq = 0;
  #failed: string | undefined;

  constructor(
    private readonly dir: string = intentDir(),
    private readonly onFailure: (message: string) => void = () => undefined,
  ) {}

  /** Records an intent before its PUT. */
  open(team: string, intent: CreateIntent): OpenIntent {
    const folder = join(this.dir, safe(team));
    const file = join(
      folder,
      `${ruleKey(intent.field, intent.search)}.${process.pid}.${TOKEN}.${++this.#seq}.json`,
    );
    try {
      mkdirSync(folder, { recursive: true, mode: 0o700 });
      const stored: Stored = { ...intent, pid: process.pid, token: TOKEN };
      writeFileSync(file, JSON.stringify(stored), { mode: 0o600 });
    } catch (err) {
      this.fail(err);
      return { close: () => undefined };
    }
    return { close: () => rmSync(file, { force: true }) };
  }

  /**
   * Intents for this field and search that dead processes left, newest first, each with a `settle()`
   * that removes it once its outcome is known.
   */
  left(team: string, field: string, search: string): Array<CreateIntent & { settle(): void }> {
    const folder = join(this.dir, safe(team));
    const prefix = `${ruleKey(field, search)}.`;
    let names: string[];
    try {
      names = readdirSync(folder).filter((n) => n.startsWith(prefix));
    } catch {
      return [];
    }
    const found: Array<CreateIntent & { settle(): void }> = [];
    for (const name of names) {
      const file = join(folder, name);
      let stored: Stored;
      try {
        stored = JSON.parse(readFileSync(file, "utf8")) as Stored;
      } catch {
        continue; // written by a process that died mid-write: nothing was sent after it
      }
      if (stored.field !== field || stored.search !== search || alive(stored.pid, stored.token)) continue;
      const { field: f, search: s, before, at } = stored;
      found.push({ field: f, search: s, before, at, settle: () => rmSync(file, { force: true }) });
    }
    return found.sort((a, b) => b.at.localeCompare(a.at));
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
