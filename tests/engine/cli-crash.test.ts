/**
 * A crash through the real engine: the plugin is killed with SIGKILL while creates are in flight.
 * The engine itself did not crash, so it records no pending operation (what we had assumed): the
 * creates in flight fail, and rules whose PUT the API applied are in no state. The next `up` adopts
 * them through the plugin's journal: every declared rule exists exactly once, nothing is orphaned,
 * and a hand-made copy of one of them is left alone.
 */
import { readFileSync, readdirSync, readlinkSync } from "node:fs";
import { join } from "node:path";
import { createSimulator, type Simulator } from "pulumi-secops/simulator";
import { engineStack, type EngineStack } from "../helpers/pulumi-stack";
import { rules } from "../helpers/sim-counts";
import { built } from "../helpers/spawn";

jest.setTimeout(300_000);
built("plugin/pulumi-resource-secops.js");
const RULES = 30;
let sim: Simulator;
let s: EngineStack;

/** Pids of plugin processes started in the program's folder. */
function plugins(dir: string): number[] {
  const pids: number[] = [];
  for (const name of readdirSync("/proc")) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const cmd = readFileSync(`/proc/${name}/cmdline`, "utf8");
      if (cmd.includes("pulumi-resource-secops") && readlinkSync(`/proc/${name}/cwd`) === dir)
        pids.push(Number(name));
    } catch {
      // gone meanwhile
    }
  }
  return pids;
}

beforeAll(async () => {
  sim = await createSimulator({ seed: 406 });
  s = await engineStack("crash", join(__dirname, "programs", "teams.js"));
  const searches = Array.from({ length: RULES }, (_, i) => `crash-${i}-*`);
  await s.config("baseUrl", sim.url);
  await s.config("teams", JSON.stringify({ c1: { rules: searches } }));
  await s.config("c1ApiKey", sim.apiKeys.client1Admin, true);
});
afterAll(async () => {
  s?.remove();
  await sim?.close();
});

test("SIGKILL of the plugin mid-up: the next up adopts what the lost creates made; each declared rule exists once; nothing else is touched", async () => {
  const hand = await sim.control.addRule({
    teamId: "team-client-1",
    searchField: "name",
    search: "crash-3-*",
  });
  const before = await rules(sim);
  // Creates commit at once and answer 2 s later: the kill lands on PUTs the API has applied, long
  // before the up could finish (the 30 creates take 6 s at least), however busy the machine.
  await sim.control.setFaults([
    { kind: "commit-stall", method: "PUT", path: "/endpoint/hva/automation", latencyMs: 2_000 },
  ]);
  const up = s.op("up");
  let killed: number[] = [];
  for (let tries = 0; tries < 600 && killed.length === 0; tries++) {
    const made = (await sim.control.state()).rules.filter((r) =>
      String(r.search).startsWith("crash-"),
    ).length;
    if (made >= 6) {
      killed = plugins(s.dir);
      for (const pid of killed) process.kill(pid, "SIGKILL");
    } else await new Promise((r) => setTimeout(r, 50));
  }
  expect(killed.length).toBe(1);
  const crashed = await up;
  expect(crashed.ok).toBe(false);
  await sim.control.clearFaults();

  // The engine's own record: the engine did not crash, so it leaves no pending operation; each create
  // in flight failed ("error reading from server: connection reset by peer") and is not in the state.
  // A PUT that reached the API before the kill is found by the next create through the plugin's
  // journal (it proves which rule that PUT made).
  expect(crashed.stdout).toContain("exited prematurely");
  const state = JSON.parse((await s.pulumi(["stack", "export"])).stdout) as {
    deployment: { pending_operations?: unknown[]; resources?: Array<{ type: string }> };
  };
  expect(state.deployment.pending_operations ?? []).toEqual([]);
  const recorded = (state.deployment.resources ?? []).filter(
    (r) => r.type === "secops:index:HvaAutomationRule",
  );
  const live = (await sim.control.state()).rules.filter(
    (r) => String(r.search).startsWith("crash-") && r.id !== hand.id,
  );
  // Rules the API made that the state does not hold: what the next up must adopt, never duplicate.
  expect(live.length).toBeGreaterThan(recorded.length);

  const next = await s.op("up");
  expect(next.ok).toBe(true);
  expect(next.summary).toEqual({ create: RULES - recorded.length, same: recorded.length + 2 });
  const searches = Array.from({ length: RULES }, (_, i) => `crash-${i}-*`);
  const after = await rules(sim);
  for (const search of searches)
    expect({ search, copies: after.filter((r) => r === `team-client-1 ${search} true`).length }).toEqual({
      search,
      copies: search === "crash-3-*" ? 2 : 1, // the hand-made copy stays, untouched
    });
  expect((await sim.control.state()).rules.find((r) => r.id === hand.id)).toBeDefined();
  expect(after.length).toBe(before.length + RULES);
  // Nothing of the stack's is left behind by destroy; the hand-made rule stays.
  expect((await s.op("destroy")).ok).toBe(true);
  expect(await rules(sim)).toEqual(before);
});
