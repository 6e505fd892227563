/**
 * The simulator's state: seeded at start, changed by the API and the control API, optionally
 * persisted to a JSON file (only what can change; the rest is regenerated from the seed).
 */
import { existsSync, readFileSync, renameSync, writeFileSync } from "node:fs";
import { detection } from "./detections";
import * as seedData from "./seed";

type Json = Record<string, unknown>;

/** An HVA rule as stored. */
export interface SimRule {
  id: string;
  teamId: string;
  enabled: boolean;
  searchField: string;
  search: string;
}

/** Options that shape the seeded store. */
export interface StoreOptions {
  seed: number;
  /** Adds case `case-big` with this many detections. */
  bigCase?: number;
  /** Makes the CSV export this many rows long (synthetic cases after the stored ones). */
  csvRows?: number;
  statePath?: string;
}

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
    this.cases = seedData.cases(options.seed, 12);
    this.cases.forEach((c, i) => this.detectionCounts.set(c.id, 3 + i * 3));
    if (options.bigCase && options.bigCase > 0) {
      this.cases.push({ ...this.cases[0], id: "case-big", sid: "C-BIG", title: "Big case" });
      this.detectionCounts.set("case-big", options.bigCase);
    }
    this.csvRows = Math.max(options.csvRows ?? 0, this.cases.length);
    const sizes: Record<string, number> = { [seedData.TEAM_REGULAR]: 60, [seedData.TEAM_SP]: 5 };
    for (const team of this.teams) {
      for (const u of seedData.directoryUsers(options.seed, team.id, sizes[team.id] ?? 10))
        this.users.set(u.id as string, u);
    }
    this.seedComments();
    for (const [field, search, enabled] of [
      ["name", "dc-*", true],
      ["name", "sql-prod-*", true],
      ["name", "legacy-*", false],
    ] as const) {
      this.addRule(seedData.TEAM_REGULAR, field, search, enabled);
    }
    if (this.statePath && existsSync(this.statePath)) this.load(this.statePath);
  }

  /** Creates a rule with a fresh id. */
  addRule(teamId: string, searchField: string, search: string, enabled = true): SimRule {
    this.ruleSeq++;
    const id = `hva-${String(this.ruleSeq).padStart(4, "0")}-${(this.seed * 2654435761 + this.ruleSeq * 40503).toString(16).slice(-6)}`;
    const rule = { id, teamId, enabled, searchField, search };
    this.rules.set(id, rule);
    return rule;
  }

  /** Sets a rule's enabled flag; undefined when there is no such rule. */
  setRuleEnabled(id: string, enabled: boolean): SimRule | undefined {
    const rule = this.rules.get(id);
    if (rule) rule.enabled = enabled;
    return rule;
  }

  /** Deletes a rule; false when there was none. */
  deleteRule(id: string): boolean {
    return this.rules.delete(id);
  }

  /** Merges `change` into a directory user (and stamps updatedAt); undefined when there is none. */
  updateUser(id: string, change: Json, stamp = true): Json | undefined {
    const user = this.users.get(id);
    if (!user) return undefined;
    Object.assign(user, change, stamp ? { updatedAt: new Date().toISOString() } : {});
    return user;
  }

  /** Merges `change` into a timeline comment (and stamps updatedAt); undefined when there is none. */
  updateComment(id: string, change: Json): Json | undefined {
    const comment = this.comments.get(id);
    if (!comment) return undefined;
    Object.assign(comment, change, { updatedAt: new Date().toISOString() });
    return comment;
  }

  /** An out-of-band change (the control API): merges into, or deletes, a rule or a user. */
  outOfBand(kind: "hva" | "users", id: string, change: Json | "delete"): Json | undefined {
    const item = (kind === "hva" ? this.rules.get(id) : this.users.get(id)) as Json | undefined;
    if (!item) return undefined;
    if (change === "delete") {
      if (kind === "hva") this.rules.delete(id);
      else this.users.delete(id);
      return {};
    }
    return Object.assign(item, change);
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

  /** The export row `i`: a stored case, or a synthetic one past them (for large exports). */
  caseRow(i: number): seedData.SimCase & { detectionCount: number } {
    if (i < this.cases.length)
      return { ...this.cases[i], detectionCount: this.detectionCounts.get(this.cases[i].id) ?? 0 };
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
    for (let i = 0; i < 20; i++) {
      const id = `cmt-${String(i + 1).padStart(3, "0")}`;
      const deleted = i % 7 === 6;
      this.comments.set(id, {
        id,
        caseId: this.cases[i % this.cases.length].id,
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
