import { asHost } from "../helpers/provider";
/**
 * Over 1,000 provider operations with about 10% injected faults (429 with Retry-After, 503,
 * connection resets, commit-then-drop, broken 2xx bodies) end with the declared state: zero
 * duplicates, zero orphans, and no retry before Retry-After. Operations run as `pulumi up` would
 * run them, 16 at a time; a failed operation is left for the next round, as a user re-runs `up`.
 */
import * as pulumi from "@pulumi/pulumi";
import { provider as implementation } from "pulumi-secops/resources/hva-automation-rule";
import { createSimulator, type FaultRule, type Simulator } from "pulumi-secops/simulator";
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

async function pool<T>(items: T[], limit: number, f: (t: T) => Promise<void>): Promise<void> {
  const queue = [...items];
  await Promise.all(
    Array.from({ length: limit }, async () => {
      for (let t = queue.shift(); t !== undefined; t = queue.shift()) await f(t);
    }),
  );
}

async function op(f: () => Promise<void>): Promise<void> {
  operations++;
  try {
    await f();
  } catch (err) {
    failures++;
    const e = err as { id?: string; properties?: Outs };
    // A partial failure is tracked with what the provider reported, as the engine does.
    if (e.id && e.properties) state.set(e.properties.search, { id: e.id, outs: e.properties });
  }
}

/** One `up`: create what is missing, update what differs, delete what is no longer declared. */
async function up(declared: Map<string, boolean>): Promise<number> {
  const work: Array<() => Promise<void>> = [];
  for (const [search, enabled] of declared) {
    const inputs = { field: "name", search, enabled, adoptExisting: false };
    const t = state.get(search);
    if (!t)
      work.push(() =>
        op(async () => {
          const r = await provider.create(inputs);
          state.set(search, { id: r.id, outs: r.outs as Outs });
        }),
      );
    else if ((await provider.diff(t.id, t.outs, inputs)).changes)
      work.push(() =>
        op(async () => {
          const r = await provider.update(t.id, t.outs, inputs);
          state.set(search, { id: t.id, outs: r.outs as Outs });
        }),
      );
  }
  for (const [search, t] of state) {
    if (!declared.has(search))
      work.push(() =>
        op(async () => {
          await provider.delete(t.id, t.outs);
          state.delete(search);
        }),
      );
  }
  await pool(work, 16, (w) => w());
  return work.length;
}

async function converge(declared: Map<string, boolean>): Promise<void> {
  for (let round = 0; round < 8; round++) if ((await up(declared)) === 0) return;
  throw new Error("did not converge in 8 rounds");
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
    op(async () => {
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
