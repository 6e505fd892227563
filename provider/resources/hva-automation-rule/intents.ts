/**
 * The create-intent journal. Before a create's PUT, what the list showed for the same field and search
 * (`before`) is written to a small file, removed once the outcome is handed back. When the PUT answered
 * with an id, the file keeps it (`made`, with the URN if known) until a later call about that id shows
 * the caller holds it: the engine or runner may die before recording the answer. A file whose process
 * is dead is what a crash left: the next create or settle of the same rule can prove which rule, if
 * any, that PUT made, excluding every rule listed before it and every rule another intent says it made.
 *
 * Where: `SECOPS_INTENT_DIR`, else `<PULUMI_HOME or ~/.pulumi>/secops/intents`, a folder per team and per
 * field and search (flat files of an earlier version are still found). A journal that cannot be written
 * is reported once and creates go on (a crash then leaves an orphan `secops drift` lists).
 */
import { mkdirSync, readdirSync, readFileSync, renameSync, rmdirSync, rmSync, writeFileSync } from "node:fs";
import { readdir, readFile, unlink } from "node:fs/promises";
import { dirname, join } from "node:path";
import { createHash } from "node:crypto";
import { TOKEN, alive, intentDir, safe, tried, writer } from "../framework/processes";

export { intentDir } from "../framework/processes";

/** A rule's folder name: a hash of its field and search. */
const ruleKey = (field: string, search: string) =>
  createHash("sha256").update(`${field}\0${search}`).digest("hex").slice(0, 24);

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

/** An open intent: `made` once the PUT answered with an id, else `close` once the outcome is known. */
export interface OpenIntent {
  made(id: string): void;
  close(): void;
}

/** An intent a dead process left, with `settle()` to remove it once its outcome is known. */
export type LeftIntent = CreateIntent & { settle(): void };

type Entry = { file: string; stored: Stored };

/**
 * What the journal holds for one rule: intents dead processes left (`left`, newest first), the ids any
 * intent says its PUT made (`made`), and the intents of other processes that still run (`busy`).
 */
export interface Scanned {
  left: LeftIntent[];
  made: Set<string>;
  busy: Array<CreateIntent & { pid: number }>;
}

/** The names in `folder`; none when it does not exist. */
const namesIn = (folder: string): string[] => tried(() => readdirSync(folder)) ?? [];

/**
 * The journal of one process (every team, every rule). File operations block every call, so it does only
 * what the proof needs, never reads its own files back, and does not wait for removals ({@link confirmSoon}).
 */
export class IntentJournal {
  #seq = 0;
  #failed: string | undefined;
  /** Per team: the flat files an earlier version left, by rule key (read once; never added to). */
  readonly #legacy = new Map<string, Map<string, string[]>>();
  /** Rule folders this journal made or wrote to: a create sends no mkdir for them. */
  readonly #folders = new Set<string>();
  /** This process's own intent files, by folder, with what each holds now. */
  readonly #own = new Map<string, Map<string, Stored>>();
  /** The ids a background confirm has looked for in their rule's folder (see {@link confirmSoon}). */
  readonly #looked = new Set<string>();
  /** Per rule folder: the background confirms not yet done (see {@link confirmed}). */
  readonly #removing = new Map<string, Promise<void>>();

  constructor(private readonly dir: string = intentDir()) {}

  /** Records an intent before its PUT (a torn new file reads as nothing: no PUT was sent after it). */
  open(team: string, intent: CreateIntent): OpenIntent {
    const folder = this.folder(team, intent.field, intent.search);
    const file = join(folder, `${process.pid}.${TOKEN}.${++this.#seq}.json`);
    const stored: Stored = { ...intent, ...writer() };
    try {
      this.writeNew(folder, file, stored);
    } catch (err) {
      this.fail(err);
      return { made: () => undefined, close: () => undefined };
    }
    this.#folders.add(folder);
    this.own(file, stored);
    const close = () => this.remove(file);
    const made = (id: string) => {
      try {
        // Rewritten whole or not at all: a kill mid-write never loses the proof of a PUT sent.
        writeFileSync(`${file}.partial`, JSON.stringify({ ...stored, made: id }), { mode: 0o600 });
        renameSync(`${file}.partial`, file);
        this.own(file, { ...stored, made: id });
      } catch (err) {
        this.fail(err);
        close();
      }
    };
    return { made, close };
  }

  /** Writes a new intent file, making its folder if not known, or again if {@link dropEmpty} removed it. */
  private writeNew(folder: string, file: string, stored: Stored): void {
    for (let attempt = 0; ; attempt++) {
      if (!this.#folders.has(folder) || attempt > 0) mkdirSync(folder, { recursive: true, mode: 0o700 });
      try {
        return writeFileSync(file, JSON.stringify(stored), { mode: 0o600, flag: "wx" });
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code !== "ENOENT" || attempt >= 2) throw err;
      }
    }
  }

  /** Removes a rule's folder once no process has a file in it (a writer makes it again if needed). */
  private dropEmpty(folder: string): void {
    if (this.owned(folder).length) return;
    try {
      rmdirSync(folder);
      this.#folders.delete(folder);
    } catch {
      // not empty (another process's intents), or gone already
    }
  }

  /**
   * Intents for this field and search: those dead processes left (`left`, newest first), and the ids
   * any intent says its PUT made (`made`: never candidates for another create).
   */
  scan(team: string, field: string, search: string): Scanned {
    const left: LeftIntent[] = [];
    const made = new Set<string>();
    const busy: Array<CreateIntent & { pid: number }> = [];
    for (const { file, stored } of this.read(team, field, search)) {
      if (stored.made) made.add(stored.made);
      if (alive(stored.pid, stored.token, stored.start)) {
        if (stored.pid !== process.pid) busy.push(stored);
        continue;
      }
      const { before, at, urn, made: id } = stored;
      const settle = () => this.remove(file);
      left.push({ field, search, before, at, ...(urn ? { urn } : {}), ...(id ? { made: id } : {}), settle });
    }
    return { left: left.sort((a, b) => b.at.localeCompare(a.at)), made, busy };
  }

  /**
   * The ids the PUTs of creates for resource `urn` answered with, kept by any process (one that died,
   * or a dynamic-provider host that outlived its engine): the answer to the resource's own request.
   */
  madeFor(team: string, field: string, search: string, urn: string | undefined): Set<string> {
    const ids = new Set<string>();
    if (!urn) return ids;
    for (const { stored } of this.read(team, field, search))
      if (stored.made && stored.urn === urn && stored.pid !== process.pid) ids.add(stored.made);
    return ids;
  }

  /** {@link scan} before a create: a missing rule folder is made now, and then holds nothing to read. */
  scanForCreate(team: string, field: string, search: string): Scanned {
    const folder = this.folder(team, field, search);
    if (!this.#folders.has(folder)) {
      // The first folder made, "" when it was there, undefined when it cannot be (the intent's write says so).
      const madeNow = tried(() => mkdirSync(folder, { recursive: true, mode: 0o700 }) ?? "");
      if (madeNow !== undefined) this.#folders.add(folder);
      if (madeNow && !this.legacy(team).has(ruleKey(field, search)))
        return { left: [], made: new Set(), busy: [] };
    }
    return this.scan(team, field, search);
  }

  /** A later call about rule `id` shows it is held: the intents that made it are removed. */
  confirm(team: string, field: string, search: string, id: string): void {
    for (const { file, stored } of this.read(team, field, search)) if (stored.made === id) this.remove(file);
  }

  /**
   * {@link confirm} without waiting for the disk. An id this process made is named by its own intent
   * alone (no later intent names an existing id); for any other id the folder is read once per process.
   * A crash before the removal leaves an intent naming a held rule: never a candidate, adopted only by
   * the same URN, removed by the next call about the id.
   */
  confirmSoon(team: string, field: unknown, search: unknown, id: string): void {
    if (typeof field !== "string" || typeof search !== "string") return;
    const folder = this.folder(team, field, search);
    const removeHeld = async () => {
      let entries = this.owned(folder).filter((e) => e.stored.made === id);
      const looked = `${folder}\0${id}`;
      const first = !this.#looked.has(looked);
      this.#looked.add(looked);
      if (entries.length === 0 && first)
        entries = (await this.readSoon(team, field, search)).filter((e) => e.stored.made === id);
      for (const { file } of entries) {
        this.own(file, undefined);
        await unlink(file).catch((err: NodeJS.ErrnoException) => {
          if (err.code === "ENOENT") return;
          this.#looked.delete(looked); // left in place: the next call about the id reads it again
          throw err;
        });
      }
      if (entries.length) this.dropEmpty(folder);
    };
    const done = (this.#removing.get(folder) ?? Promise.resolve()).then(removeHeld).catch(() => undefined);
    this.#removing.set(folder, done);
    void done.then(() => {
      if (this.#removing.get(folder) === done) this.#removing.delete(folder);
    });
  }

  /** Resolves once this rule's {@link confirmSoon}s are done, so a later scan sees what they left. */
  async confirmed(team: string, field: string, search: string): Promise<void> {
    await this.#removing.get(this.folder(team, field, search));
  }

  /** Marks rule `id` taken over by this process while it runs: another provider's delete leaves it. */
  markTakenOver(team: string, id: string): void {
    const folder = join(this.dir, "taken", safe(team));
    const file = join(folder, `${safe(id)}.${process.pid}.${TOKEN}.json`);
    try {
      mkdirSync(folder, { recursive: true, mode: 0o700 });
      writeFileSync(file, JSON.stringify({ id, ...writer() }), { mode: 0o600 });
    } catch (err) {
      this.fail(err);
    }
  }

  /** True when another running process took rule `id` over (a delete leaves it); dead marks are removed. */
  takenOverElsewhere(team: string, id: string): boolean {
    const folder = join(this.dir, "taken", safe(team));
    const names = namesIn(folder).filter((n) => n.startsWith(`${safe(id)}.`));
    let elsewhere = false;
    for (const name of names) {
      const file = join(folder, name);
      type Mark = { id?: unknown; pid?: unknown; token?: unknown; start?: unknown };
      const mark = tried(() => JSON.parse(readFileSync(file, "utf8")) as Mark);
      if (mark === undefined) continue; // torn or gone
      if (mark.id !== id || typeof mark.pid !== "number" || typeof mark.token !== "string") continue;
      const start = typeof mark.start === "string" ? mark.start : undefined;
      if (!alive(mark.pid, mark.token, start)) rmSync(file, { force: true });
      else if (mark.pid !== process.pid) elsewhere = true;
    }
    return elsewhere;
  }

  /** Intents for this field and search that dead processes left (see {@link scan}). */
  left(team: string, field: string, search: string): LeftIntent[] {
    return this.scan(team, field, search).left;
  }

  /** The intent files of one rule (this process's own known without reading them). */
  private read(team: string, field: string, search: string): Entry[] {
    const folder = this.folder(team, field, search);
    return this.files(team, field, search, namesIn(folder)).flatMap(
      (file) => this.entry(folder, file, () => readFileSync(file, "utf8"), field, search) ?? [],
    );
  }

  /** {@link read} through libuv's thread pool. */
  private async readSoon(team: string, field: string, search: string): Promise<Entry[]> {
    const folder = this.folder(team, field, search);
    const names = await readdir(folder).catch(() => []);
    const entries = await Promise.all(
      this.files(team, field, search, names).map(async (file) => {
        const own = this.#own.get(folder)?.has(file);
        const text = own ? undefined : await readFile(file, "utf8").catch(() => undefined);
        return this.entry(folder, file, () => text, field, search);
      }),
    );
    return entries.filter((e) => e !== undefined);
  }

  /** The rule's files: those in its folder (`names`) and the flat ones an earlier version left. */
  private files(team: string, field: string, search: string, names: string[]): string[] {
    const folder = this.folder(team, field, search);
    const legacy = this.legacy(team).get(ruleKey(field, search)) ?? [];
    return [...names.filter((n) => n.endsWith(".json")).map((n) => join(folder, n)), ...legacy];
  }

  /** One file's intent: this process's own from memory, another's from `text()`; gone or torn: none. */
  private entry(folder: string, file: string, text: () => string | undefined, field: string, search: string) {
    const own = this.#own.get(folder)?.get(file);
    if (own) return { file, stored: own };
    const stored = tried(() => JSON.parse(text() ?? "") as Stored | null);
    return stored?.field === field && stored.search === search ? { file, stored } : undefined;
  }

  private owned(folder: string): Entry[] {
    return [...(this.#own.get(folder) ?? [])].map(([file, stored]) => ({ file, stored }));
  }

  /** Notes what this process's `file` holds now (undefined: removed). */
  private own(file: string, stored: Stored | undefined): void {
    const folder = dirname(file);
    const files = this.#own.get(folder) ?? new Map<string, Stored>();
    if (stored) this.#own.set(folder, files.set(file, stored));
    else if (files.delete(file) && files.size === 0) this.#own.delete(folder);
  }

  private remove(file: string): void {
    this.own(file, undefined);
    rmSync(file, { force: true }); // one already gone is fine
    this.dropEmpty(dirname(file));
  }

  private folder(team: string, field: string, search: string): string {
    return join(this.dir, safe(team), ruleKey(field, search));
  }

  /** Flat files of an earlier version in the team's folder (`<key>.<pid>.<token>.<seq>.json`). */
  private legacy(team: string): Map<string, string[]> {
    let byKey = this.#legacy.get(team);
    if (byKey) return byKey;
    byKey = new Map();
    const folder = join(this.dir, safe(team));
    for (const name of namesIn(folder).filter((n) => n.endsWith(".json"))) {
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
  }
}

let shared: IntentJournal | undefined;

/** The process's journal (created on first use, in the folder the environment names then). */
export function intentJournal(): IntentJournal {
  shared ??= new IntentJournal();
  return shared;
}
