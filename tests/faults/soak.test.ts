import { asHost } from "../helpers/provider";
/**
 * Over 1,000 provider operations with about 10% injected faults (429 with Retry-After, 503,
 * connection resets, commit-then-drop, broken 2xx bodies) end with the declared state: zero
 * duplicates, zero orphans, and no retry before Retry-After. Operations run as `pulumi up` would
 * run them, 16 at a time; a failed operation is left for the next round, as a user re-runs `up`.
 */
import { createHash } from "node:crypto";
import { readFileSync, readdirSync } from "node:fs";
import { join } from "node:path";
import * as pulumi from "@pulumi/pulumi";
import { intentDir } from "../../provider/resources/hva-automation-rule/intents";
import { provider as implementation } from "pulumi-secops/resources/hva-automation-rule";
import { createSimulator, type FaultRule, type Simulator } from "secops-sim";
const provider = asHost(implementation);

type Outs = { field: string; search: string; enabled: boolean; teamId: string };
type Tracked = { id: string; outs: Outs };
const PREFIX = "soak-";
const FAULTS: FaultRule[] = [
  { kind: "429", rate: 0.02, retryAfter: 1 },
  { kind: "503", rate: 0.02 },
  { kind: "reset", rate: 0.02 },
  { kind: "commit-drop", rate: 0.02 },
  { kind: "malformed-json", rate: 0.01 },
  { kind: "empty-200", rate: 0.01 },
].map((f) => ({ ...f, path: "/endpoint/hva/automation" }) as FaultRule);

let sim: Simulator;
const state = new Map<string, Tracked>(); // search -> tracked rule (the stack's state)
let operations = 0;
let failures = 0;
/** Every failed operation, for the report. */
const failed: string[] = [];

async function pool<T>(items: T[], limit: number, f: (t: T) => Promise<void>): Promise<void> {
  const queue = [...items];
  await Promise.all(
    Array.from({ length: limit }, async () => {
      for (let t = queue.shift(); t !== undefined; t = queue.shift()) await f(t);
    }),
  );
}

/** Per rule (search): the operation the last round ran for it and, if it failed, its error. */
const lastRound = new Map<string, { op: string; error?: string }>();
let round = 0;
/**
 * Rounds (`up`s) before the soak calls a failure. A rule is left unsettled only when its operation
 * fails in every round. An operation sends at most 5 requests to the faulty route (a replace: the
 * DELETE, the list before the create, the PUT, a reconciling list, the PATCH of `enabled`), each
 * faulted at 10% in all, so even if every fault failed its operation (most are retried or reconciled:
 * 0 of 1,040 failed in the runs measured here) an operation fails with p <= 1 - 0.9^5 = 0.41. Three
 * converges of at most 480 rules: P(spurious failure) <= 3 * 480 * 0.41^R, under 1e-4 from R = 19
 * (6.3e-5).
 */
const ROUNDS = 19;

async function op(name: string, search: string, f: () => Promise<void>): Promise<void> {
  operations++;
  try {
    lastRound.set(search, { op: name });
    await f();
  } catch (err) {
    failures++;
    const e = err as { id?: string; properties?: Outs; message?: string };
    lastRound.set(search, { op: name, error: String(e.message ?? err) });
    failed.push(`round ${round} ${name} ${search}: ${String(e.message ?? err)}`);
    // A partial failure is tracked with what the provider reported, as the engine does.
    if (e.id && e.properties) state.set(e.properties.search, { id: e.id, outs: e.properties });
  }
}

/** The plan of one `up`: create what is missing, update what differs, delete what is no longer declared. */
async function plan(
  declared: Map<string, boolean>,
): Promise<Array<{ search: string; run: () => Promise<void> }>> {
  const work: Array<{ search: string; run: () => Promise<void> }> = [];
  for (const [search, enabled] of declared) {
    const inputs = { field: "name", search, enabled, adoptExisting: false };
    const t = state.get(search);
    if (!t)
      work.push({
        search,
        run: () =>
          op("create", search, async () => {
            const r = await provider.create(inputs);
            state.set(search, { id: r.id, outs: r.outs as Outs });
          }),
      });
    else {
      const d = await provider.diff(t.id, t.outs, inputs);
      if (!d.changes) continue;
      // A replacement (a pending create is settled by its delete, then created afresh), as the engine
      // runs it: delete first when the diff asks for it, then create.
      if (d.replaces?.length)
        work.push({
          search,
          run: () =>
            op("replace", search, async () => {
              if (d.deleteBeforeReplace) {
                await provider.delete(t.id, t.outs);
                state.delete(search);
              }
              const r = await provider.create(inputs);
              if (!d.deleteBeforeReplace) await provider.delete(t.id, t.outs);
              state.set(search, { id: r.id, outs: r.outs as Outs });
            }),
        });
      else
        work.push({
          search,
          run: () =>
            op("update", search, async () => {
              const r = await provider.update(t.id, t.outs, inputs);
              state.set(search, { id: t.id, outs: r.outs as Outs });
            }),
        });
    }
  }
  for (const [search, t] of state) {
    if (!declared.has(search))
      work.push({
        search,
        run: () =>
          op("delete", search, async () => {
            await provider.delete(t.id, t.outs);
            state.delete(search);
          }),
      });
  }
  return work;
}

/** One `up`: its plan, run 16 operations at a time; the number of operations run. */
async function up(declared: Map<string, boolean>): Promise<number> {
  lastRound.clear();
  const work = await plan(declared);
  await pool(work, 16, (w) => w.run());
  return work.length;
}

async function converge(declared: Map<string, boolean>): Promise<void> {
  for (round = 0; round < ROUNDS; round++) if ((await up(declared)) === 0) return;
  throw new Error(`did not converge in ${ROUNDS} rounds:\n${await unsettled(declared)}`);
}

/** What did not converge: each rule the next `up` would still change, with what the last round did to it. */
async function unsettled(declared: Map<string, boolean>): Promise<string> {
  const { rules } = await sim.control.state();
  const team = String([...state.values()][0]?.outs.teamId ?? "");
  const lines: string[] = [];
  for (const { search } of await plan(declared)) {
    const t = state.get(search);
    const last = lastRound.get(search);
    const inApi = rules.filter((r) => r.search === search).map((r) => `${r.id} enabled=${r.enabled}`);
    lines.push(
      `  ${search}: declared ${declared.has(search) ? `enabled=${declared.get(search)}` : "no"}; state ${t ? `${t.id} enabled=${t.outs.enabled}` : "none"}; API [${inApi.join(", ")}]; last round: ${last ? `${last.op} ${last.error ? `failed: ${last.error}` : "succeeded"}` : "nothing"}; journal: ${journalOf(team, search)}`,
    );
  }
  return lines.join("\n");
}

/** The intent files the journal holds for one rule, as written. */
function journalOf(team: string, search: string): string {
  const folder = join(intentDir(), team.replace(/[^A-Za-z0-9_.-]/g, "_"));
  const key = createHash("sha256").update(`name\0${search}`).digest("hex").slice(0, 24);
  try {
    const files = readdirSync(join(folder, key));
    return files.map((f) => readFileSync(join(folder, key, f), "utf8")).join(" ") || "empty";
  } catch {
    return "none";
  }
}

beforeAll(async () => {
  sim = await createSimulator({ seed: 71, faults: FAULTS });
  jest.spyOn(pulumi.log, "warn").mockImplementation(async () => undefined);
  await provider.configure({
    config: { get: (k: string) => ({ "secops:apiKey": sim.apiKeys.admin, "secops:baseUrl": sim.url })[k] },
  } as never);
});
afterAll(async () => {
  jest.restoreAllMocks();
  await sim.close();
});

test("1,000+ operations under ~10% faults end in the declared state", async () => {
  const v1 = new Map<string, boolean>(Array.from({ length: 400 }, (_, i) => [`${PREFIX}${i}`, i % 3 !== 0]));
  await converge(v1);
  const v2 = new Map<string, boolean>(
    [...v1]
      .filter(([s]) => Number(s.slice(PREFIX.length)) % 5 !== 0)
      .map(([s, e], i) => [s, i % 4 === 0 ? !e : e]),
  );
  for (let i = 400; i < 480; i++) v2.set(`${PREFIX}${i}`, true);
  await converge(v2);
  // Refresh: read every rule (faults apply to reads too).
  await pool([...state.entries()], 16, ([search, t]) =>
    op("read", search, async () => {
      const r = await provider.read(t.id, t.outs);
      expect(r.id).toBe(t.id);
      state.set(search, { id: t.id, outs: r.props as Outs });
    }),
  );
  await converge(v2);

  const live = (await sim.control.state()).rules.filter((r) => String(r.search).startsWith(PREFIX));
  const stats = await sim.control.stats();
  const injected = Object.values(stats.faultsInjected).reduce((a, b) => a + b, 0);
  const requests = Object.entries(stats.requests)
    .filter(([k]) => k.includes("/endpoint/hva/automation"))
    .reduce((a, [, n]) => a + n, 0);
  report(
    `soak: ${operations} operations (${failures} failed and were re-run), ${requests} requests, ${injected} faults injected ${JSON.stringify(stats.faultsInjected)}, ${stats.earlyRetries} early retries`,
  );
  for (const f of failed) report(`  ${f}`);

  expect(operations).toBeGreaterThanOrEqual(1000);
  expect(injected / requests).toBeGreaterThan(0.05);
  // Declared state, zero duplicates, zero orphans.
  expect(live.map((r) => r.search).sort()).toEqual([...v2.keys()].sort());
  expect(new Set(live.map((r) => r.search)).size).toBe(live.length);
  expect(live.map((r) => r.id).sort()).toEqual([...state.values()].map((t) => t.id).sort());
  for (const r of live) expect(r.enabled).toBe(v2.get(r.search as string));
  // No retry before Retry-After (the simulator checks every retry of a 429'd request id).
  expect(stats.faultsInjected["429"]).toBeGreaterThan(0);
  expect(stats.earlyRetries).toBe(0);
}, 300_000);

/** The run's figures, printed only when asked (SECOPS_SOAK_REPORT=1): a green run stays quiet. */
function report(line: string): void {
  if (process.env.SECOPS_SOAK_REPORT) process.stdout.write(`${line}\n`);
}
