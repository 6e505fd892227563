/**
 * Ctrl-C of the offline runner's `up` (issue 45 point 11): the runner says what was in flight and that
 * the next run settles it, and exits 130 as a shell expects; the next `up` leaves each declared rule
 * exactly once (what the interrupted creates made is adopted, nothing is made twice or orphaned).
 */
import { spawn } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createSimulator, type Simulator } from "pulumi-secops/simulator";
import { linkPackage } from "../rig";
import { NO_EXPERIMENTAL_WARNING, ROOT, built, RIG } from "../helpers/spawn";

jest.setTimeout(120_000);
built("index.js");
let sim: Simulator;
let dir: string;
const SEARCHES = ["intr-a-*", "intr-b-*", "intr-c-*"];

beforeAll(async () => {
  sim = await createSimulator({ seed: 11 });
  dir = mkdtempSync(join(tmpdir(), "secops-runner-interrupt-"));
  linkPackage(dir, ROOT);
  writeFileSync(
    join(dir, "up.js"),
    `const { LifecycleRunner } = require(${JSON.stringify(RIG)});
const { HvaAutomationRule } = require("pulumi-secops");
const [url, key] = process.argv.slice(2);
new LifecycleRunner({
  program: () => { for (const s of ${JSON.stringify(SEARCHES)}) new HvaAutomationRule(s.slice(0, 6), { field: "name", search: s }); },
  programDir: __dirname, statePath: __dirname + "/state.json", progress: false,
  config: { "secops:apiKey": key, "secops:baseUrl": url },
}).up().then((steps) => console.log(JSON.stringify(steps.map((s) => [s.op, s.ok]))), (e) => { console.error(e.message); process.exit(1); });
`,
  );
});
afterAll(async () => {
  rmSync(dir, { recursive: true, force: true });
  await sim.close();
});

const live = async () =>
  (await sim.control.state()).rules
    .filter((r) => SEARCHES.includes(String(r.search)))
    .map((r) => String(r.search))
    .sort();

function upProcess() {
  // Node 26 warns of FFI when Pulumi's serializer loads every built-in module: not the runner's words.
  const args = [NO_EXPERIMENTAL_WARNING, join(dir, "up.js"), sim.url, sim.apiKeys.admin];
  const child = spawn(process.execPath, args, { cwd: dir });
  let stdout = "";
  let stderr = "";
  child.stdout.on("data", (c) => (stdout += c));
  child.stderr.on("data", (c) => (stderr += c));
  const ended = new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve) =>
    child.once("close", (code) => resolve({ code, stdout, stderr })),
  );
  return { child, ended };
}

test("Ctrl-C of an up says what was in flight and that the next run settles it; the next up makes each rule once", async () => {
  // Each create's PUT is applied, then its answer held: the interrupt lands with all three in flight.
  await sim.control.setFaults([
    { kind: "commit-stall", method: "PUT", path: "/endpoint/hva/automation", latencyMs: 30_000 },
  ]);
  const before = (await sim.control.stats()).requests["PUT /endpoint/hva/automation"] ?? 0;
  const up = upProcess();
  for (let i = 0; i < 2_000; i++) {
    const now = (await sim.control.stats()).requests["PUT /endpoint/hva/automation"] ?? 0;
    if (now - before >= SEARCHES.length) break;
    await new Promise((r) => setTimeout(r, 10));
  }
  expect(await live()).toEqual([...SEARCHES].sort()); // the PUTs were applied
  up.child.kill("SIGINT");
  const ended = await up.ended;
  await sim.control.clearFaults();
  expect(ended.code).toBe(130);
  expect(ended.stdout).toBe("");
  expect(ended.stderr).toBe(
    `secops runner: up interrupted (SIGINT) with 3 operation(s) in flight: ${SEARCHES.map((s) => `create ${s.slice(0, 6)}`).join(", ")}. What they may have done is recorded in ${join(dir, "state.json")}: the next up or destroy settles it (never a duplicate, never an orphan).\n`,
  );
  // The next up adopts what the interrupted creates made: each rule once.
  const again = upProcess();
  const next = await again.ended;
  expect({ code: next.code, stderr: next.stderr }).toEqual({ code: 0, stderr: "" });
  expect(await live()).toEqual([...SEARCHES].sort());
});
