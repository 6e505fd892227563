/**
 * The whole lifecycle under faults, through the offline runner and Pulumi's dynamic-provider host
 * (issue 11): 300 rules, about 20% of API requests failing (commit-then-drop on PUT, 500 on the list
 * and on reads, connection resets, 429s), and the runner killed with SIGKILL in the middle of an `up`.
 * After at most four further `up`s (a rule whose PUT the kill left unanswered is refused by name, and
 * then taken with adoptExisting) the API holds exactly the declared rules (zero duplicates, zero
 * orphans); `destroy` leaves none. The killed runner's host does not outlive it.
 */
import { spawn } from "node:child_process";
import { mkdtempSync, readdirSync, readlinkSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createSimulator, type FaultRule, type Simulator } from "secops-sim";
import { LifecycleRunner, linkPackage, stepsOf } from "..";
import { NO_EXPERIMENTAL_WARNING, ROOT, built, RIG } from "../../helpers/spawn";

const RULES = 300;
const PREFIX = "rsoak-";
const RULES_PATH = "/endpoint/hva/automation";
// Rules are drawn in order, each at its rate: about 20% of the API's requests fail in all.
const FAULTS: FaultRule[] = [
  { kind: "commit-drop", method: "PUT", path: RULES_PATH, rate: 0.07 },
  { kind: "500", method: "GET", path: RULES_PATH, rate: 0.2 },
  { kind: "reset", path: RULES_PATH, rate: 0.07 },
  { kind: "429", path: RULES_PATH, rate: 0.07, retryAfter: 0 },
  // Slow creates, so the kill lands while one is in flight.
  { kind: "latency", method: "PUT", path: RULES_PATH, latencyMs: 30 },
];

built("index.js");
/** The program: RULES rules, each adopting an identical rule when `adopt`. */
const program = (adopt: boolean) => `const { HvaAutomationRule } = require("pulumi-secops");
for (let i = 0; i < ${RULES}; i++) new HvaAutomationRule("r" + i, { field: "name", search: "${PREFIX}" + i + "-*"${adopt ? ", adoptExisting: true" : ""} });
`;
let sim: Simulator;
let dir: string;

beforeAll(async () => {
  sim = await createSimulator({ seed: 97, faults: FAULTS });
  dir = mkdtempSync(join(tmpdir(), "secops-runner-soak-"));
  linkPackage(dir, ROOT);
  writeFileSync(join(dir, "index.js"), program(false));
  writeFileSync(
    join(dir, "up.js"),
    `const { LifecycleRunner } = require(${JSON.stringify(RIG)});
const runner = new LifecycleRunner({ program: __dirname + "/index.js", programDir: __dirname,
  statePath: __dirname + "/state.json", config: JSON.parse(process.argv[2]) });
runner.up().catch(() => undefined).then(() => runner.close());
`,
  );
});
afterAll(async () => {
  await sim.close();
  rmSync(dir, { recursive: true, force: true });
});

const config = () => ({ "secops:apiKey": sim.apiKeys.admin, "secops:baseUrl": sim.url });
const live = async () => (await sim.control.state()).rules.filter((r) => String(r.search).startsWith(PREFIX));

/** Processes whose working directory is the program's: the hosts runners started there. */
function hostsIn(cwd: string): number[] {
  const pids: number[] = [];
  for (const pid of readdirSync("/proc").filter((p) => /^\d+$/.test(p))) {
    try {
      if (readlinkSync(`/proc/${pid}/cwd`) === cwd && Number(pid) !== process.pid) pids.push(Number(pid));
    } catch {
      /* gone or not ours */
    }
  }
  return pids;
}

/** Polls for an event every 50 ms, at most `tries` times; says whether it happened (never how fast). */
async function until(check: () => boolean | Promise<boolean>, tries: number): Promise<boolean> {
  for (let i = 0; i < tries; i++, await new Promise((d) => setTimeout(d, 50))) if (await check()) return true;
  return check();
}

test("300 rules under 20% faults and a kill -9 mid-up converge to exactly the declared rules", async () => {
  // 1. A runner in its own process, killed with SIGKILL once about a third of the rules exist.
  const child = spawn(
    process.execPath,
    [NO_EXPERIMENTAL_WARNING, join(dir, "up.js"), JSON.stringify(config())],
    {
      cwd: dir,
      stdio: ["ignore", "ignore", "pipe"],
    },
  );
  let childErr = "";
  child.stderr.on("data", (c) => (childErr += String(c)));
  expect(await until(async () => (await live()).length >= RULES / 3, 1_200)).toBe(true);
  expect(hostsIn(dir).length).toBeGreaterThan(0);
  child.kill("SIGKILL");
  await new Promise((d) => child.once("exit", d));
  const atKill = (await live()).length;
  // The host held the key and served gRPC: it must end with its runner.
  expect(await until(() => hostsIn(dir).length === 0, 200)).toBe(true);
  expect(childErr).toBe("");

  // 2. At most three further ups, faults still on.
  const runner = new LifecycleRunner({
    program: join(dir, "index.js"),
    programDir: dir,
    statePath: join(dir, "state.json"),
    config: config(),
  });
  const pendingAfterKill = runner.state().pending?.length ?? 0;
  const errors: string[] = [];
  let ups = 0;
  let failedSteps = 0;
  try {
    // A refresh under faults first: failed reads (500s) are errors that leave state untouched.
    const ids = () =>
      runner
        .state()
        .resources.map((r) => r.id)
        .sort();
    const before = ids();
    const refreshed = await stepsOf(runner.refresh());
    expect(refreshed.filter((st) => st.op === "gone")).toEqual([]);
    expect(ids()).toEqual(before);
    const readFailures = refreshed.filter((st) => !st.ok).length;
    for (; ups < 4;) {
      const steps = await stepsOf(runner.up());
      ups++;
      const failed = steps.filter((s) => !s.ok).length;
      for (const s of steps.filter((x) => !x.ok)) errors.push(`${s.op} ${s.name}: ${s.error}`);
      failedSteps += failed;
      if (failed === 0) break;
      // A PUT the kill (or a fault) left unanswered proves nothing: its rule is refused by name (or a
      // pending create names it), never made twice, and the user takes it with adoptExisting, as the
      // messages say. adoptExisting never takes a rule another resource holds.
      writeFileSync(join(dir, "index.js"), program(true));
    }
    await sim.control.clearFaults();
    const state = runner.state();
    const rules = await live();
    const bySearch = new Map<string, number>();
    for (const r of rules) bySearch.set(String(r.search), (bySearch.get(String(r.search)) ?? 0) + 1);
    const duplicates = [...bySearch.values()].filter((n) => n > 1).length;
    const stateIds = new Set(state.resources.map((r) => r.id));
    const orphans = rules.filter((r) => !stateIds.has(String(r.id))).length;
    const stats = await sim.control.stats();
    const requests = Object.entries(stats.requests)
      .filter(([k]) => k.includes(RULES_PATH))
      .reduce((n, [, v]) => n + v, 0);
    const faults = Object.entries(stats.faultsInjected)
      .filter(([k]) => k !== "latency")
      .reduce((n, [, v]) => n + v, 0);
    report(
      `runner soak: ${RULES} rules, killed at ${atKill} live with ${pendingAfterKill} pending intent(s); ` +
        `refresh under faults: ${readFailures} failed read(s), nothing dropped; ${ups} further up(s), ` +
        `${failedSteps} failed step(s) along the way; ${faults} faults in ${requests} requests ` +
        `(${Math.round((100 * faults) / requests)}%) ${JSON.stringify(stats.faultsInjected)}; ` +
        `${rules.length} live, ${duplicates} duplicates, ${orphans} orphans` +
        (errors.length ? `\n${errors.join("\n")}` : ""),
    );
    expect(state.pending).toBeUndefined();
    expect(state.resources.map((r) => r.id).filter((id) => id.startsWith("pending:"))).toEqual([]);
    // Every declared rule exists once in the state, and nothing the state holds was deleted.
    expect(bySearch.size).toBe(RULES);
    expect(state.resources.every((r) => rules.some((x) => x.id === r.id))).toBe(true);
    // A create the host answered but the killed runner never recorded is found through the intent
    // journal (the id its PUT answered with) and settled: no duplicate, no orphan.
    expect(duplicates).toBe(0);
    expect(orphans).toBe(0);

    // 3. Destroy, faults back on: retried as a user would, it leaves nothing.
    await sim.control.setFaults(FAULTS.filter((f) => f.kind !== "latency"));
    for (let i = 0; i < 3 && runner.state().resources.length > 0; i++) await stepsOf(runner.destroy());
    await sim.control.clearFaults();
    expect(runner.state().resources).toEqual([]);
    expect(await live()).toEqual([]);
  } finally {
    await runner.close();
  }
}, 300_000);

/** The run's figures, printed only when asked (SECOPS_SOAK_REPORT=1): a green run stays quiet. */
function report(line: string): void {
  if (process.env.SECOPS_SOAK_REPORT) process.stdout.write(`${line}\n`);
}
