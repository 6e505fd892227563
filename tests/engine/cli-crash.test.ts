/**
 * A crash through the real engine: the plugin is killed with SIGKILL while creates are in flight.
 * The engine itself did not crash, so it records no pending operation (what we had assumed): the
 * creates in flight fail, and rules whose PUT the API applied are in no state. A PUT the kill left
 * unanswered proves nothing: the next `up` refuses those creates, naming each rule (never a second),
 * and with adoptExisting takes them: every declared rule exists exactly once, nothing is orphaned,
 * and a hand-made rule is left alone. When the Pulumi CLI itself is killed, it records the creates it
 * started as pending operations, and nobody stops its plugin: the plugin exits once it sees its
 * parent gone (a live process's journal entries are not the next run's to settle), and the next up
 * warns of the pending creates and adopts what their answered PUTs made.
 */
import { readFileSync, readdirSync, readlinkSync, realpathSync } from "node:fs";
import { join } from "node:path";
import { createSimulator, type Simulator } from "secops-sim";
import { engineStack, type EngineStack } from "../helpers/pulumi-stack";
import { rules } from "../helpers/sim-counts";
import { built } from "../helpers/spawn";

jest.setTimeout(300_000);
built("plugin/pulumi-resource-secops.js");
const RULES = 30;
let sim: Simulator;
let s: EngineStack;
let cli: EngineStack | undefined;
const leftover: number[] = [];

/** Pids of the processes started in the program's folder whose arguments pass `is` (NUL-separated). */
function processes(dir: string, is: (cmdline: string) => boolean): number[] {
  const cwd = realpathSync(dir);
  const pids: number[] = [];
  for (const name of readdirSync("/proc")) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const cmd = readFileSync(`/proc/${name}/cmdline`, "utf8");
      if (is(cmd) && readlinkSync(`/proc/${name}/cwd`) === cwd) pids.push(Number(name));
    } catch {
      // gone meanwhile
    }
  }
  return pids;
}
/** Pids of plugin processes started in the program's folder. */
const plugins = (dir: string) => processes(dir, (cmd) => cmd.includes("pulumi-resource-secops"));
/** Until `done()` holds, for 30 s at most (polled). */
async function until(done: () => boolean | Promise<boolean>): Promise<boolean> {
  for (let tries = 0; tries < 600; tries++) {
    if (await done()) return true;
    await new Promise((r) => setTimeout(r, 50));
  }
  return done();
}

const searches = Array.from({ length: RULES }, (_, i) => `crash-${i}-*`);
/** How many live rules each `crash-` search has. */
async function copies(prefix = "crash-"): Promise<Record<string, number>> {
  const counts: Record<string, number> = {};
  for (const r of (await sim.control.state()).rules)
    if (String(r.search).startsWith(prefix)) counts[String(r.search)] = (counts[String(r.search)] ?? 0) + 1;
  return counts;
}

beforeAll(async () => {
  sim = await createSimulator({ seed: 406 });
  s = await engineStack("crash", join(__dirname, "programs", "teams.js"));
  await s.config("baseUrl", sim.url);
  await s.config("teams", JSON.stringify({ c1: { rules: searches } }));
  await s.config("c1ApiKey", sim.apiKeys.client1Admin, true);
});
afterAll(async () => {
  // A plugin this file left running (a failed test) keeps no key or journal entry alive after it.
  for (const pid of leftover)
    try {
      process.kill(pid, "SIGKILL");
    } catch {
      // gone
    }
  s?.remove();
  cli?.remove();
  await sim?.close();
});

test("SIGKILL of the plugin mid-up: the next up adopts what the lost creates made; each declared rule exists once; nothing else is touched", async () => {
  const hand = await sim.control.addRule({
    teamId: "team-client-1",
    searchField: "name",
    // Not a declared rule: one the team already holds is refused at Check (never a second).
    search: "crash-hand-*",
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

  // A PUT the kill left unanswered proves nothing: the rule it made is a candidate. The next up
  // refuses those creates, naming each rule, and never makes a second one.
  const crashedCounts = await copies();
  const next = await s.op("up");
  expect(next.ok).toBe(false);
  expect(next.stdout.replace(/\s+/g, " ")).toContain("a second identical rule is never created");
  for (const [search, n] of Object.entries(await copies()))
    expect({ search, n }).toEqual({ search, n: crashedCounts[search] ?? 1 });
  // The message's way out: adoptExisting takes what the lost creates made. Each rule once.
  await s.config("teams", JSON.stringify({ c1: { rules: searches, adoptExisting: true } }));
  const adopted = await s.op("up");
  expect(adopted.ok).toBe(true);
  const after = await copies();
  for (const search of searches) expect({ search, n: after[search] }).toEqual({ search, n: 1 });
  expect((await sim.control.state()).rules.find((r) => r.id === hand.id)).toBeDefined();
  // Nothing of the stack's is left behind by destroy; the hand-made rule stays.
  expect((await s.op("destroy")).ok).toBe(true);
  expect(await rules(sim)).toEqual(before);
});

test("SIGKILL of the Pulumi CLI mid-up: its plugin exits on its own; the next up warns of the pending creates and adopts what they made; each rule once", async () => {
  cli = await engineStack("crash-cli", join(__dirname, "programs", "teams.js"));
  const searches = Array.from({ length: RULES }, (_, i) => `cli-crash-${i}-*`);
  await cli.config("baseUrl", sim.url);
  await cli.config("teams", JSON.stringify({ c1: { rules: searches } }));
  await cli.config("c1ApiKey", sim.apiKeys.client1Admin, true);
  const before = await rules(sim);
  await sim.control.setFaults([
    { kind: "commit-stall", method: "PUT", path: "/endpoint/hva/automation", latencyMs: 2_000 },
  ]);
  const dir = cli.dir;
  const up = cli.op("up");
  const made = async () =>
    (await sim.control.state()).rules.filter((r) => String(r.search).startsWith("cli-crash-")).length;
  expect(await until(async () => (await made()) >= 6)).toBe(true);
  // The engine: the `pulumi up` the Automation API started in the program's folder.
  const engines = processes(dir, (cmd) => /(^|\/)pulumi\0up\0/.test(cmd));
  expect(engines).toHaveLength(1);
  const orphans = plugins(dir);
  expect(orphans).toHaveLength(1);
  leftover.push(...orphans);
  process.kill(engines[0], "SIGKILL");
  expect((await up).ok).toBe(false);
  // Nobody stops the plugin now: it sees its parent gone and exits, so its journal is the next run's.
  expect(await until(() => plugins(dir).length === 0)).toBe(true);
  await sim.control.clearFaults();

  // The engine recorded the creates it had started as pending operations (it checkpoints each step
  // before it runs); the next up warns of them and sends those creates again.
  const state = JSON.parse((await cli.pulumi(["stack", "export"])).stdout) as {
    deployment: { pending_operations?: unknown[]; resources?: Array<{ type: string }> };
  };
  expect((state.deployment.pending_operations ?? []).length).toBeGreaterThan(0);
  // Rules the API made that the state does not hold: what the next up must adopt, never duplicate.
  const recorded = (state.deployment.resources ?? []).filter(
    (r) => r.type === "secops:index:HvaAutomationRule",
  ).length;
  expect(await made()).toBeGreaterThan(recorded);
  const beforeNext = await rules(sim);
  // The dead engine's lock stays on the stack (the local backend locks it): the next up is refused
  // until `pulumi cancel` removes the lock, as the refusal says.
  const locked = await cli.op("up");
  expect(locked.ok).toBe(false);
  expect(`${locked.message ?? ""}${locked.stderr}`).toContain(
    "error: the stack is currently locked by 1 lock(s). Either wait for the other process(es) to end or delete the lock file with `pulumi cancel`.",
  );
  expect(await rules(sim)).toEqual(beforeNext);
  const cancel = await cli.pulumi(["cancel", "--yes", "--stack", "dev", "--non-interactive"]);
  expect(cancel.code).toBe(0);
  // Creates whose PUT the plugin's stop cut off unanswered: their rules are candidates, refused by
  // name; those it answered are adopted. Never a second rule.
  const next = await cli.op("up");
  expect(next.stdout.replace(/\s+/g, " ")).toContain("pending operations from previous deployment");
  for (const [search, n] of Object.entries(await copies("cli-crash-")))
    expect({ search, n }).toEqual({ search, n: 1 });
  if (!next.ok) {
    expect(next.stdout.replace(/\s+/g, " ")).toContain("a second identical rule is never created");
    await cli.config("teams", JSON.stringify({ c1: { rules: searches, adoptExisting: true } }));
    expect((await cli.op("up")).ok).toBe(true);
  }
  const after = await rules(sim);
  for (const search of searches)
    expect({ search, copies: after.filter((r) => r === `team-client-1 ${search} true`).length }).toEqual({
      search,
      copies: 1,
    });
  expect(after.length).toBe(before.length + RULES);
  expect((await cli.op("destroy")).ok).toBe(true);
  expect(await rules(sim)).toEqual(before);
});
