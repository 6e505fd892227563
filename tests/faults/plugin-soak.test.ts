/**
 * Issue 19's soak, through the native plugin over gRPC: 200 rules across two client teams (one plugin
 * process per team, as the engine runs one per provider), with mixed faults (reset before and after
 * commit, 500 after commit, 500 on lists, 429, latency) and two kill -9s of a plugin with creates in
 * flight. The test plays the engine: it records what a Create answered (an id, or a partial failure's
 * id), records nothing for a failed call, and on the next run sends Create again for what it does not
 * hold, Diff for what it does, and Delete then Create for a pending create (deleteBeforeReplace).
 * After a final fault-free run: 0 duplicates, 0 orphans, 0 hand-made rules touched, 0 requests from one
 * team's key naming another team's rule.
 */
import { InitFailedError, NativePluginProcess, secret, type ProviderProcess } from "../rig";
import { SecOpsClient } from "pulumi-secops/client";
import { createSimulator, type FaultRule, type Simulator } from "secops-sim";
import { startFakeEngine, type FakeEngine } from "../helpers/engine";
import { built } from "../helpers/spawn";
import { existsReason } from "pulumi-secops/resources/hva-automation-rule";
import { unsettledPending } from "../../provider/resources/hva-automation-rule/reconcile";

built("native/plugin/main.js");
const PER_TEAM = 100;
const RULES = "/endpoint/hva/automation";
const FAULTS: FaultRule[] = [
  { kind: "reset", method: "PUT", path: RULES, rate: 0.04 },
  { kind: "commit-drop", method: "PUT", path: RULES, rate: 0.04 },
  { kind: "commit-500", method: "PUT", path: RULES, rate: 0.04 },
  { kind: "500", method: "GET", path: RULES, rate: 0.08 },
  { kind: "429", path: RULES, rate: 0.04, retryAfter: 0 },
  // Slow creates, so each kill lands with creates in flight.
  { kind: "latency", method: "PUT", path: RULES, latencyMs: 25 },
];

type Bag = Record<string, unknown>;
interface Team {
  name: string;
  key: string;
  teamId: string;
  /** The engine's state: URN -> id and properties. */
  state: Map<string, { id: string; props: Bag }>;
  /** Rules a person made: id -> search and enabled. */
  handMade: Map<string, { search: string; enabled: boolean }>;
  /** Resources the user set adoptExisting: true on, after a refusal named their rule. */
  adopt: Set<string>;
  /** Refusals seen (never a second identical rule; a pending create's candidate named). */
  refusals: number;
}

let sim: Simulator;
let engine: FakeEngine;
const teams: Team[] = [];
const prefix = (t: Team) => `psoak-${t.name}-`;
const urnOf = (t: Team, i: number) => `urn:pulumi:soak::p::secops:index:HvaAutomationRule::${t.name}-${i}`;
const declared = (t: Team) =>
  Array.from({ length: PER_TEAM }, (_, i) => ({
    urn: urnOf(t, i),
    inputs: {
      field: "name",
      search: `${prefix(t)}${i}-*`,
      enabled: i % 3 !== 0,
      adoptExisting: t.adopt.has(urnOf(t, i)),
    },
  }));

beforeAll(async () => {
  sim = await createSimulator({ seed: 1919 });
  engine = await startFakeEngine();
  for (const [name, key] of [
    ["c1", sim.apiKeys.client1Admin],
    ["c2", sim.apiKeys.client2Admin],
  ]) {
    const team: Team = {
      name,
      key,
      teamId: "",
      state: new Map(),
      handMade: new Map(),
      adopt: new Set(),
      refusals: 0,
    };
    // Made by hand before the stack: five with the same field and search as a declared rule (one
    // disabled), five others.
    const c = new SecOpsClient({ apiKey: key, baseUrl: sim.url });
    for (const search of [0, 1, 2, 3, 4]
      .map((i) => `${prefix(team)}${i}-*`)
      .concat([0, 1, 2, 3, 4].map((i) => `${prefix(team)}hand-${i}-*`))) {
      let rule = await c.createHvaRule({ field: "name", search });
      if (search.endsWith("1-*")) rule = await c.setHvaRuleEnabled(rule.id, false);
      team.handMade.set(rule.id, { search, enabled: rule.enabled ?? true });
      team.teamId = rule.teamId ?? "";
    }
    await c.close();
    teams.push(team);
  }
  expect(new Set(teams.map((t) => t.teamId)).size).toBe(2);
});
afterAll(async () => {
  await engine.close();
  await sim.close();
});

async function start(key: string): Promise<ProviderProcess> {
  const plugin = await NativePluginProcess.start({ engineAddress: engine.address });
  await plugin.configure({ apiKey: secret(key), baseUrl: sim.url });
  return plugin;
}

async function pool<T>(items: T[], limit: number, f: (t: T) => Promise<void>): Promise<void> {
  const queue = [...items];
  await Promise.all(
    Array.from({ length: limit }, async () => {
      for (let x = queue.shift(); x !== undefined; x = queue.shift()) await f(x);
    }),
  );
}

/**
 * A refusal that names the rule (a create whose rule exists: what a killed run's unanswered PUT
 * made, or a hand-made one; a pending create whose candidate appeared after its request) is checked
 * word for word, its rules must be live and held by no resource, and the user then sets
 * adoptExisting: true on the resource, as the message says.
 */
async function refused(t: Team, urn: string, inputs: Bag, message: string): Promise<void> {
  const ids = /\((?:rule|rules) ([^)]+)\)|(?:rule|rules) ((?:hva-[\w-]+(?:, )?)+) with that field/.exec(
    message,
  );
  if (!ids) return;
  const named = (ids[1] ?? ids[2]).split(", ");
  const search = inputs.search as string;
  const exists = `3 INVALID_ARGUMENT: secops: invalid inputs for ${urn}: search: ${existsReason(t.teamId, "name", search, named, false)}`;
  const held = t.state.get(urn);
  const pending = held
    ? `9 FAILED_PRECONDITION: ${
        unsettledPending(
          held.props,
          named.map((id) => ({ id }) as never),
          false,
        ).message
      }`
    : undefined;
  expect([exists, pending]).toContain(message);
  const live = (await sim.control.state()).rules.filter((r) => r.search === search).map((r) => String(r.id));
  const holders = new Set([...t.state.values()].map((s) => s.id));
  expect(named.filter((id) => !live.includes(id) || holders.has(id))).toEqual([]);
  t.adopt.add(urn);
  t.refusals++;
}

/** What one run did for one team. */
interface RunFigures {
  creates: number;
  answered: number;
  failed: string[];
}

/**
 * One `up` for a team through its plugin, 10 operations at a time, as the engine runs it. With
 * `killAfter`, the plugin is killed with SIGKILL once that many creates were answered.
 */
async function up(t: Team, killAfter?: number, key = t.key): Promise<RunFigures> {
  const plugin = await start(key);
  const figures: RunFigures = { creates: 0, answered: 0, failed: [] };
  const create = async (urn: string, inputs: Bag) => {
    figures.creates++;
    try {
      const made = await plugin.create(urn, inputs);
      t.state.set(urn, { id: made.id, props: made.properties });
      if (++figures.answered === killAfter) process.kill(plugin.pid!, "SIGKILL");
    } catch (err) {
      // A partial failure is recorded with its id, as the engine does; any other failure records nothing.
      if (err instanceof InitFailedError) t.state.set(urn, { id: err.id, props: err.properties });
      throw err;
    }
  };
  try {
    await pool(declared(t), 10, async ({ urn, inputs }) => {
      try {
        const held = t.state.get(urn);
        if (!held) return await create(urn, inputs);
        const diff = await plugin.diff(held.id, urn, held.props, inputs);
        if (diff.deleteBeforeReplace) {
          await plugin.delete(held.id, urn, held.props);
          t.state.delete(urn);
          return await create(urn, inputs);
        }
        if (diff.changes) {
          const { properties } = await plugin.update(held.id, urn, held.props, inputs);
          t.state.set(urn, { id: held.id, props: properties });
        }
      } catch (err) {
        figures.failed.push(`${urn}: ${(err as Error).message}`);
        if (key === t.key) await refused(t, urn, inputs, (err as Error).message);
      }
    });
  } finally {
    await plugin.close().catch(() => undefined);
  }
  return figures;
}

test("200 rules, two teams, mixed faults and two kill -9s of the plugin: no duplicate, orphan, wrong-team or hand-made rule touched", async () => {
  const [c1, c2] = teams;
  await sim.control.setFaults(FAULTS);
  // Run 1: each team's plugin is killed with creates in flight, at different points.
  const first = await Promise.all([up(c1, 30), up(c2, 70)]);
  // Answers already on their way still arrive after the kill; the creates left after it fail.
  expect(first.map((f) => f.answered >= 30 && f.answered < PER_TEAM)).toEqual([true, true]);
  expect(first.map((f) => f.failed.length > 0)).toEqual([true, true]);
  const atKill = await counts();
  // Further runs under the same faults, as a user re-runs `up`, until one has no failure.
  const runs: RunFigures[][] = [first];
  for (let i = 0; i < 5 && runs[runs.length - 1].some((f) => f.failed.length > 0); i++)
    runs.push(await Promise.all([up(c1), up(c2)]));
  await sim.control.clearFaults();
  const final = await Promise.all([up(c1), up(c2)]);
  expect(final.flatMap((f) => f.failed)).toEqual([]);

  const stats = await sim.control.stats();
  const faults = Object.entries(stats.faultsInjected)
    .filter(([k]) => k !== "latency")
    .reduce((n, [, v]) => n + v, 0);
  const rules = (await sim.control.state()).rules;
  for (const t of teams) {
    const mine = rules.filter((r) => String(r.search).startsWith(prefix(t)));
    // Every rule of this team's prefix is in this team; every resource recorded this team.
    expect(mine.filter((r) => r.teamId !== t.teamId)).toEqual([]);
    expect([...t.state.values()].filter((s) => s.props.teamId !== t.teamId)).toEqual([]);
    // Every declared rule is held once, by one resource, with its declared `enabled`.
    const ids = [...t.state.values()].map((s) => s.id);
    // The five hand-made rules identical to declared ones were refused, then adopted (never a second
    // rule beside them); the other hand-made rules are all there, unchanged.
    const identicalHandMade = [...t.handMade].filter(([, was]) => !was.search.includes("hand-"));
    expect(identicalHandMade.map(([id]) => ids.includes(id))).toEqual([true, true, true, true, true]);
    for (const [id, was] of t.handMade)
      if (!ids.includes(id))
        expect(mine.find((r) => r.id === id)).toMatchObject({ search: was.search, enabled: was.enabled });
    expect(new Set(ids).size).toBe(PER_TEAM);
    expect(ids.filter((id) => id.startsWith("pending:"))).toEqual([]);
    for (const { urn, inputs } of declared(t)) {
      const rule = mine.find((r) => r.id === t.state.get(urn)?.id);
      expect(rule).toMatchObject({ search: inputs.search, enabled: inputs.enabled });
    }
    // Nothing else: no duplicate, no orphan.
    const extra = mine.filter((r) => !ids.includes(String(r.id)) && !t.handMade.has(String(r.id)));
    expect(extra).toEqual([]);
    expect(mine).toHaveLength(PER_TEAM + t.handMade.size - identicalHandMade.length);
    expect(t.refusals).toBeGreaterThanOrEqual(identicalHandMade.length);
  }
  // A misconfigured pipeline: each team's stack run with the other team's key. Every operation fails
  // naming both teams, before any request about a rule; nothing changes.
  const before = JSON.stringify((await sim.control.state()).rules);
  const swapped = await Promise.all([up(c1, undefined, c2.key), up(c2, undefined, c1.key)]);
  expect(swapped.map((f) => f.failed.length)).toEqual([PER_TEAM, PER_TEAM]);
  for (const [t, other, f] of [
    [c1, c2, swapped[0]],
    [c2, c1, swapped[1]],
  ] as const)
    for (const failure of f.failed)
      expect(failure).toMatch(new RegExp(`${t.teamId}[^]*${other.teamId}|${other.teamId}[^]*${t.teamId}`));
  expect(JSON.stringify((await sim.control.state()).rules)).toBe(before);
  expect((await sim.control.stats()).crossTeam).toBe(0);
  report(
    `plugin soak: ${2 * PER_TEAM} rules in 2 teams; run 1 killed each team's plugin (after 30 and 70 ` +
      `answered creates; ${atKill.live} rules live then, ${atKill.held} held); ${runs.length - 1} more ` +
      `run(s) under faults (${runs.flat().reduce((n, f) => n + f.failed.length, 0)} failed operations ` +
      `in all), then a fault-free run; ${faults} faults injected ${JSON.stringify(stats.faultsInjected)}; ` +
      `0 duplicates, 0 orphans, ${c1.refusals + c2.refusals} creates refused naming an existing rule ` +
      `(then adopted), the other hand-made rules untouched, ` +
      `${stats.crossTeam} wrong-team requests (also with the keys swapped: ${2 * PER_TEAM} operations refused)`,
  );

  /** Rules of both prefixes live now, and ids the engine holds. */
  async function counts() {
    const all = (await sim.control.state()).rules.filter((r) => /^psoak-/.test(String(r.search)));
    return { live: all.length - 20, held: c1.state.size + c2.state.size };
  }
}, 240_000);

/** The run's figures, printed only when asked (SECOPS_SOAK_REPORT=1): a green run stays quiet. */
function report(line: string): void {
  if (process.env.SECOPS_SOAK_REPORT) process.stdout.write(`${line}\n`);
}
