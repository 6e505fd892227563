/**
 * examples/ci-drift as its nightly job uses it, through the offline runner and Pulumi's
 * dynamic-provider host: up, a clean preview, changes made by hand, then refresh + preview (what
 * `pulumi preview --refresh --expect-no-changes` runs) proposes exactly the repairs. Also checks that the
 * example is a complete program a user can copy (package.json, lockfile in sync, Node 22+, workflow).
 */
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createSimulator, type Simulator } from "secops-sim";
import { LifecycleRunner, linkPackage } from "../rig";
import { ROOT, built } from "../helpers/spawn";

const EXAMPLE = join(ROOT, "examples", "ci-drift");
built("resources/hva-automation-rule/index.js");
// The example runs as Pulumi runs a program with PULUMI_NODEJS_TRANSPILE_ONLY=true: its types are the
// subject of tests/consumer/examples-typescript.test.ts (TypeScript 5.9, 6 and 7, its own tsconfig).
// Checking them again here cost ~3 s of CPU (TypeScript parsing and binding @pulumi/pulumi's types).
process.env.PULUMI_NODEJS_TRANSPILE_ONLY = "true";
let sim: Simulator;
let dir: string;
let runner: LifecycleRunner;

beforeAll(async () => {
  sim = await createSimulator({ seed: 57 });
  dir = mkdtempSync(join(tmpdir(), "secops-ci-drift-"));
  linkPackage(dir, ROOT);
  runner = new LifecycleRunner({
    program: join(EXAMPLE, "index.ts"),
    programDir: dir,
    statePath: join(dir, "state.json"),
    config: { "secops:apiKey": sim.apiKeys.admin, "secops:baseUrl": sim.url },
  });
});
afterAll(async () => {
  await runner.close();
  await sim.close();
  rmSync(dir, { recursive: true, force: true });
});

const plan = (steps: { op: string; name: string; changes: string[] }[]) =>
  steps.map((s) => [s.op, s.name, s.changes]);

test("the drift job passes on a clean stack and proposes the repairs after changes by hand", async () => {
  expect(plan(await runner.up())).toEqual([
    ["create", "domain-controllers", []],
    ["create", "payment-servers", []],
  ]);
  // The nightly job on an untouched stack: refresh, then a preview with nothing to do.
  expect(plan(await runner.refresh()).map(([op]) => op)).toEqual(["same", "same"]);
  expect(plan(await runner.preview()).map(([op]) => op)).toEqual(["same", "same"]);

  const [dc, pay] = runner.state().resources;
  await sim.control.patchRule(dc.id, { enabled: false });
  await sim.control.deleteRule(pay.id);
  expect(plan(await runner.refresh())).toEqual([
    ["drift", "domain-controllers", ["enabled: true → false"]],
    ["gone", "payment-servers", []],
  ]);
  // What --expect-no-changes fails on: the update and create shown in the example's README.
  expect(plan(await runner.preview())).toEqual([
    ["update", "domain-controllers", ["enabled: false → true"]],
    ["create", "payment-servers", []],
  ]);
  await runner.up();
  expect(plan(await runner.preview()).map(([op]) => op)).toEqual(["same", "same"]);
  const ids = runner.state().resources.map((r) => r.id);
  await runner.destroy();
  const live = new Set((await sim.control.state()).rules.map((r) => r.id));
  expect(ids.filter((id) => live.has(id))).toEqual([]);
}, 60_000);

test("the example is a program a user can copy: package.json, lockfile in sync, Node 22+, workflow", () => {
  const pkg = JSON.parse(readFileSync(join(EXAMPLE, "package.json"), "utf8"));
  const lock = JSON.parse(readFileSync(join(EXAMPLE, "package-lock.json"), "utf8"));
  expect(pkg.engines.node).toBe(">=22");
  expect(lock.lockfileVersion).toBe(3);
  expect(lock.packages[""].dependencies).toEqual(pkg.dependencies);
  expect(lock.packages[""].devDependencies).toEqual(pkg.devDependencies);
  // @pulumi/policy for the workflow's policy step (the pack's optional peer dependency).
  expect(Object.keys(pkg.dependencies).sort()).toEqual(["@pulumi/policy", "@pulumi/pulumi", "pulumi-secops"]);
  expect(lock.packages["node_modules/@pulumi/policy"].version).toMatch(/^1\./);
  expect(lock.packages["node_modules/@pulumi/pulumi"].version).toMatch(/^3\./);
  const workflow = readFileSync(join(EXAMPLE, "drift.yml"), "utf8");
  expect(workflow).toContain("node-version: 22");
  expect(workflow).toMatch(/^ {2}PROGRAM_DIR: \S+ # <- the one line to change$/m);
  expect(workflow).toContain("copy\n# this file to .github/workflows/secops-drift.yml");
  expect(workflow).toMatch(/refresh: true\n\s+expect-no-changes: true/);
  const readme = readFileSync(join(EXAMPLE, "README.md"), "utf8");
  // The failed preview the README shows is the CLI's (tests/engine/cli-ci-drift.test.ts compares it).
  expect(readme).toContain("error: no changes were expected for preview but changes were proposed");
  expect(readme).not.toMatch(/no Pulumi CLI was available|illustration/);
});
