/**
 * The simulator's state: seeded at start, changed by the API and the control API, optionally
 * persisted to a JSON file (only what can change; the rest is regenerated from the seed).
 */
import { existsSync, readFileSync, renameSync, writeFileSync } from "node:fs";
import { detection } from "./detections";
import type { SimulatorOptions } from "./index";
import * as seedData from "./seed";

type Json = Record<string, unknown>;

/** An HVA rule as stored. */
export type SimRule = {
  id: string;
  teamId: string;
  enabled: boolean;
  searchField: string;
  search: string;
};

/** Options that shape the seeded store (as {@link SimulatorOptions} describes them). */
export type StoreOptions = Pick<
  SimulatorOptions,
  "bigCase" | "csvRows" | "statePath" | "rules" | "users" | "team"
> & {
  seed: number;
};

const PNG_1PX =
  "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==";

/** The simulated service's data. */
export class Store {
  readonly seed: number;
  readonly teams = seedData.teams();
  readonly keys: seedData.SimKey[];
  readonly integrations: seedData.SimIntegration[];
  readonly cases: seedData.SimCase[];
  readonly detectionCounts = new Map<string, number>();
  users = new Map<string, Json>();
  rules = new Map<string, SimRule>();
  comments = new Map<string, Json>();
  private ruleSeq = 0;
  private readonly statePath?: string;
  readonly csvRows: number;

  constructor(options: StoreOptions) {
    this.seed = options.seed;
    this.statePath = options.statePath;
    this.keys = seedData.keys(options.seed);
    this.integrations = seedData.integrations(options.seed);
    this.cases = seedData.allCases(options.seed);
    for (const { teamId } of seedData.CASES_PER_TEAM)
      this.cases
        .filter((c) => c.teamId === teamId)
        .forEach((c, i) => this.detectionCounts.set(c.id, 3 + i * 3));
    if (options.bigCase && options.bigCase > 0) {
      const at = this.cases.filter((c) => c.teamId === seedData.TEAM_REGULAR).length;
      this.cases.splice(at, 0, { ...this.cases[0], id: "case-big", sid: "C-BIG", title: "Big case" });
      this.detectionCounts.set("case-big", options.bigCase);
    }
    this.csvRows = Math.max(options.csvRows ?? 0, this.regularCases().length);
    const sizes: Record<string, number> = { [seedData.TEAM_REGULAR]: 60, [seedData.TEAM_SP]: 5 };
    for (const team of this.teams) {
      for (const u of seedData.directoryUsers(options.seed, team.id, sizes[team.id] ?? 10))
        this.users.set(u.id as string, u);
    }
    this.seedComments();
    for (const [field, search, enabled] of [
      ["name", "exchange-*", true],
      ["name", "sql-reports-*", true],
      ["name", "legacy-*", false],
    ] as const) {
      this.addRule(seedData.TEAM_REGULAR, field, search, enabled);
    }
    this.grow(options);
    if (this.statePath && existsSync(this.statePath)) this.load(this.statePath);
  }

  /** A big tenant: `rules` rules made by hand and `users` more directory users in one team. */
  private grow({ rules = 0, users = 0, team = seedData.TEAM_REGULAR }: StoreOptions): void {
    if (!this.teams.some((t) => t.id === team))
      throw new Error(`team must be one of ${this.teams.map((t) => t.id).join(", ")}`);
    for (let i = 1; i <= rules; i++) this.addRule(team, "name", `bulk-${i}-*`, i % 5 !== 0);
    const base = [...this.users.values()].filter((u) => u.teamId === team).length;
    for (const u of seedData.directoryUsers(this.seed, team, base + users).slice(base))
      this.users.set(u.id as string, u);
  }

  /**
   * Adds a directory user to a team with the next free id (`du-<team>-NNN`), generated as the seed's
   * users are; `fields` (email, displayName, ...) replace the generated ones.
   */
  addUser(teamId: string, fields: Json = {}): Json {
    const prefix = `du-${teamId}-`;
    let next = 1;
    for (const id of this.users.keys())
      if (id.startsWith(prefix)) next = Math.max(next, Number(id.slice(prefix.length)) + 1);
    const user = { ...seedData.directoryUsers(this.seed, teamId, next).at(-1)!, ...fields };
    this.users.set(user.id as string, user);
    return user;
  }

  /** Creates a rule with a fresh id. */
  addRule(teamId: string, searchField: string, search: string, enabled = true): SimRule {
    this.ruleSeq++;
    const id = `hva-${String(this.ruleSeq).padStart(4, "0")}-${(this.seed * 2654435761 + this.ruleSeq * 40503).toString(16).slice(-6)}`;
    const rule = { id, teamId, enabled, searchField, search };
    this.rules.set(id, rule);
    return rule;
  }

  /**
   * Merges `change` into a rule, directory user or timeline comment, or deletes it (the API's and the
   * control API's changes); answers the object, or undefined when there is none.
   */
  change(kind: "rules" | "users" | "comments", id: string, change: Json | "delete"): Json | undefined {
    const items: Map<string, Json> = this[kind];
    const item = items.get(id);
    if (!item || change !== "delete") return item && Object.assign(item, change);
    items.delete(id);
    return item;
  }

  /** The detections of a case, in createdAt order (ascending or descending), one page at a time. */
  detectionsPage(caseId: string, direction: "asc" | "desc", offset: number, limit: number): Json[] {
    const c = this.cases.find((x) => x.id === caseId);
    const total = this.detectionCounts.get(caseId) ?? 0;
    if (!c) return [];
    const users = [...this.users.values()].filter((u) => u.teamId === c.teamId);
    const out: Json[] = [];
    for (let k = offset; k < Math.min(total, offset + limit); k++) {
      const index = direction === "asc" ? k : total - 1 - k;
      out.push(detection(this.seed, c.id, c.sid, c.teamId, index, users[index % users.length]) as Json);
    }
    return out;
  }

  private regularCases(): seedData.SimCase[] {
    return this.cases.filter((c) => c.teamId === seedData.TEAM_REGULAR);
  }

  /**
   * The export rows of a team: its stored cases, then (the regular team only) synthetic ones up to
   * `csvRows` rows (for large exports).
   */
  *exportRows(teamId: string): Generator<seedData.SimCase & { detectionCount: number }> {
    const stored = this.cases.filter((c) => c.teamId === teamId);
    for (const c of stored) yield { ...c, detectionCount: this.detectionCounts.get(c.id) ?? 0 };
    if (teamId !== seedData.TEAM_REGULAR) return;
    for (let i = stored.length; i < this.csvRows; i++) yield this.syntheticCase(i);
  }

  private syntheticCase(i: number): seedData.SimCase & { detectionCount: number } {
    return {
      id: `case-x${i}`,
      sid: `C-${1000 + i}`,
      teamId: seedData.TEAM_REGULAR,
      title: i % 3 === 0 ? `Row ${i}, with "quotes"` : i % 3 === 1 ? `Row ${i}\nmultiline` : `Row ${i}`,
      status: "NEW",
      severity: "LOW",
      createdAt: seedData.at(i),
      detectionCount: i % 10,
    };
  }

  /** Writes what can change to `statePath` (atomically), if persistence is on. */
  save(): void {
    if (!this.statePath) return;
    const state = {
      version: 1,
      seed: this.seed,
      ruleSeq: this.ruleSeq,
      users: [...this.users.values()],
      rules: [...this.rules.values()],
      comments: [...this.comments.values()],
    };
    const tmp = `${this.statePath}.tmp`;
    writeFileSync(tmp, JSON.stringify(state));
    renameSync(tmp, this.statePath);
  }

  private load(path: string): void {
    const state = JSON.parse(readFileSync(path, "utf8")) as {
      ruleSeq: number;
      users: Json[];
      rules: SimRule[];
      comments: Json[];
    };
    this.ruleSeq = state.ruleSeq;
    this.users = new Map(state.users.map((u) => [u.id as string, u]));
    this.rules = new Map(state.rules.map((r) => [r.id, r]));
    this.comments = new Map(state.comments.map((c) => [c.id as string, c]));
  }

  private seedComments(): void {
    const cases = this.regularCases();
    for (let i = 0; i < 20; i++) {
      const id = `cmt-${String(i + 1).padStart(3, "0")}`;
      const deleted = i % 7 === 6;
      this.comments.set(id, {
        id,
        caseId: cases[i % cases.length].id,
        teamId: seedData.TEAM_REGULAR,
        authorName: i % 5 === 4 ? "former.employee@acme.example" : "Ada Lovelace",
        authorId: i % 5 === 4 ? null : "user-ada",
        content: deleted ? "" : `Investigation note ${i + 1}`,
        createdAt: seedData.at(i * 30),
        updatedAt: seedData.at(i * 30 + 5),
        deleted,
        attachments:
          i % 3 === 0
            ? [
                {
                  id: `att-${i}`,
                  filename: "screenshot.png",
                  contentType: "image/png",
                  size: 68,
                  data: PNG_1PX,
                  createdAt: seedData.at(i * 30),
                },
              ]
            : [],
      });
    }
  }
}
