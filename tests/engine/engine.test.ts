/**
 * The path `pulumi up` takes, with Pulumi's own pieces: programs under setMocks yield inputs and the
 * serialized `__provider`; Pulumi's dynamic-provider host runs them over gRPC (Configure, Check,
 * Diff, Create, Read, Update, Delete). Needs `npm run build` (the host loads the built package).
 */
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { DirectoryUserSettings, HvaAutomationRule } from "pulumi-secops";
import { createSimulator, type Simulator } from "secops-sim";
import {
  LifecycleRunner,
  declaredResources,
  formatSteps,
  linkPackage,
  stepsOf,
  type RunnerOptions,
} from "../rig";
import { ROOT, built } from "../helpers/spawn";

built("resources/hva-automation-rule/index.js");
// The examples run here as Pulumi runs a program with PULUMI_NODEJS_TRANSPILE_ONLY=true: their types
// are the subject of tests/consumer/examples-typescript.test.ts (TypeScript 5.9, 6 and 7, each
// example's tsconfig), and the runner's own type-check of tests/rig/tests/programs.test.ts. Checking
// each example again here cost ~1.7 s of CPU (TypeScript parsing and binding @pulumi/pulumi's types).
process.env.PULUMI_NODEJS_TRANSPILE_ONLY = "true";
let sim: Simulator;
let dir: string;
const runners: LifecycleRunner[] = [];

beforeAll(async () => {
  sim = await createSimulator({ seed: 51 });
  dir = mkdtempSync(join(tmpdir(), "secops-engine-"));
  linkPackage(dir, ROOT);
});
afterAll(async () => {
  await Promise.all(runners.map((r) => r.close()));
  await sim.close();
  rmSync(dir, { recursive: true, force: true });
});

function runner(program: RunnerOptions["program"], name: string, key = sim.apiKeys.admin): LifecycleRunner {
  const r = new LifecycleRunner({
    program,
    programDir: dir,
    statePath: join(dir, `${name}.state.json`),
    config: { "secops:apiKey": key, "secops:baseUrl": sim.url },
  });
  runners.push(r);
  return r;
}
const ops = (steps: { op: string; name: string; ok: boolean }[]) =>
  steps.map((s) => `${s.op} ${s.name}${s.ok ? "" : " FAILED"}`);
const writes = async () => {
  const s = await sim.control.stats();
  return Object.entries(s.requests)
    .filter(([k]) => /^(PUT|PATCH|DELETE) /.test(k))
    .reduce((n, [, v]) => n + v, 0);
};
const rulesBySearch = async () =>
  new Map((await sim.control.state()).rules.map((r) => [r.search as string, r]));

/** The keys given to runners: none may show in a state file, a step's error or a host's stderr. */
const keysIn = (text: string) => [sim.apiKeys.admin, sim.apiKeys.viewer].filter((k) => text.includes(k));

test("examples/hva-rules: preview, up, out-of-band change, refresh, repair, destroy; the key is nowhere in the state, the steps' errors or the host's stderr", async () => {
  const r = runner(join(ROOT, "examples/hva-rules/index.ts"), "hva");
  const errors: string[] = [];
  /** The steps, their errors kept for the key's hygiene check. */
  const kept = async <T extends { error?: string }>(steps: Promise<T[]>): Promise<T[]> => {
    const done = await steps;
    for (const step of done) if (step.error) errors.push(step.error);
    return done;
  };
  await sim.control.resetStats();
  expect(ops(await kept(r.preview()))).toEqual([
    "create build-agents",
    "create domain-controllers",
    "create production-databases",
  ]);
  expect(await writes()).toBe(0); // preview never writes
  expect(r.state().resources).toEqual([]);

  expect(ops(await kept(r.up()))).toEqual([
    "create build-agents",
    "create domain-controllers",
    "create production-databases",
  ]);
  const state = r.state().resources;
  expect(state.map((x) => [x.type, x.name, x.outputs.search, x.outputs.enabled])).toEqual([
    ["pulumi-nodejs:dynamic/secops:HvaAutomationRule", "build-agents", "build-*", false],
    ["pulumi-nodejs:dynamic/secops:HvaAutomationRule", "domain-controllers", "dc-*", true],
    ["pulumi-nodejs:dynamic/secops:HvaAutomationRule", "production-databases", "sql-prod-*", true],
  ]);
  let live = await rulesBySearch();
  expect(state.map((x) => live.get(x.outputs.search as string)?.id)).toEqual(state.map((x) => x.id));
  expect(live.get("build-*")?.enabled).toBe(false);

  await sim.control.resetStats();
  expect(ops(await kept(r.preview()))).toEqual([
    "same build-agents",
    "same domain-controllers",
    "same production-databases",
  ]);
  expect(await writes()).toBe(0);

  const [, dc, db] = state;
  await sim.control.patchRule(dc.id, { enabled: false });
  await sim.control.deleteRule(db.id);
  const refreshed = await kept(r.refresh());
  expect(refreshed.map((s) => [s.op, s.name, s.changes])).toEqual([
    ["same", "build-agents", []],
    ["drift", "domain-controllers", ["enabled: true → false"]],
    ["gone", "production-databases", []],
  ]);
  expect(ops(await kept(r.up()))).toEqual([
    "same build-agents",
    "update domain-controllers",
    "create production-databases",
  ]);
  // The state as stored: each rule's serialized provider (`__provider`) with its outputs.
  const stateText = readFileSync(join(dir, "hva.state.json"), "utf8");
  expect(stateText).toContain("__provider");
  live = await rulesBySearch();
  expect(live.get("dc-*")?.enabled).toBe(true);
  expect(live.get("sql-prod-*")?.id).toBe(
    r.state().resources.find((x) => x.name === "production-databases")?.id,
  );
  expect(ops(await kept(r.preview()))).toEqual([
    "same build-agents",
    "same domain-controllers",
    "same production-databases",
  ]);

  const ids = r.state().resources.map((x) => x.id);
  expect(ops(await kept(r.destroy()))).toEqual([
    "delete production-databases",
    "delete domain-controllers",
    "delete build-agents",
  ]);
  const remaining = new Set((await sim.control.state()).rules.map((x) => x.id));
  expect(ids.filter((id) => remaining.has(id))).toEqual([]);
  expect(r.state().resources).toEqual([]);
  expect(formatSteps(refreshed)).toEqual([
    "    secops:HvaAutomationRule  build-agents  unchanged",
    " ~  secops:HvaAutomationRule  domain-controllers  drifted [enabled: true → false]",
    " -  secops:HvaAutomationRule  production-databases  deleted outside Pulumi",
    "Resources: 1 unchanged, 1 drifted, 1 deleted outside Pulumi",
  ]);
  expect(keysIn([stateText, ...errors, r.hostStderr].join("\n"))).toEqual([]);
});

test("replace through the host: a changed search creates the new rule, then deletes the old", async () => {
  let search = "replace-me-*";
  const r = runner(() => new HvaAutomationRule("r", { field: "name", search }), "replace");
  await r.up();
  const first = r.state().resources[0].id;
  search = "replaced-*";
  const plan = await r.preview();
  expect(plan.map((s) => [s.op, s.changes])).toEqual([
    ["replace", ['search: "replace-me-*" → "replaced-*"']],
  ]);
  await r.up();
  const second = r.state().resources[0];
  expect(second.id).not.toBe(first);
  const live = await rulesBySearch();
  expect(live.has("replace-me-*")).toBe(false);
  expect(live.get("replaced-*")?.id).toBe(second.id);
  await r.destroy();
});

test("a partial failure through the host keeps the rule in state (no orphan)", async () => {
  const r = runner(
    () => new HvaAutomationRule("partial", { field: "name", search: "partial-*", enabled: false }),
    "partial",
  );
  await sim.control.setFaults([
    { kind: "500", method: "PATCH", path: "/endpoint/hva/automation/", times: 1 },
  ]);
  const steps = await stepsOf(r.up());
  await sim.control.clearFaults();
  expect(steps[0]).toMatchObject({
    op: "create",
    ok: false,
    error: expect.stringContaining("was created but setting enabled=false failed"),
  });
  const [tracked] = r.state().resources;
  expect(tracked.id).toBe((await rulesBySearch()).get("partial-*")?.id);
  expect(typeof tracked.outputs.__provider).toBe("string");
  // The next up repairs it through the normal diff (enabled true → false).
  expect(ops(await r.up())).toEqual(["update partial"]);
  expect((await rulesBySearch()).get("partial-*")?.enabled).toBe(false);
  await r.destroy();
});

test("examples/directory-settings through the host: refresh, repair, restore on destroy", async () => {
  const users = async () => new Map((await sim.control.state()).users.map((u) => [u.id as string, u]));
  const before = (await users()).get("du-team-acme-021")!;
  const r = runner(join(ROOT, "examples/directory-settings/index.ts"), "dir");
  await sim.control.resetStats();
  expect(ops(await r.preview())).toEqual(["create new-analyst", "create password-reset-ada"]);
  expect(await writes()).toBe(0);
  await r.up();
  let u = (await users()).get("du-team-acme-021")!;
  expect([u.needsChatOpsWelcome, u.chatOpsOnboardingUser, u.credentialsExposed]).toEqual([
    true,
    true,
    before.credentialsExposed,
  ]);
  await sim.control.patchUser("du-team-acme-021", { chatOpsOnboardingUser: false });
  expect((await r.refresh()).map((s) => [s.op, s.changes])).toEqual([
    ["drift", ["chatOpsOnboardingUser: true → false"]],
    ["same", []],
  ]);
  expect(ops(await r.up())).toEqual(["update new-analyst", "same password-reset-ada"]);
  expect((await users()).get("du-team-acme-021")!.chatOpsOnboardingUser).toBe(true);
  await r.destroy();
  u = (await users()).get("du-team-acme-021")!;
  expect([u.needsChatOpsWelcome, u.chatOpsOnboardingUser]).toEqual([
    before.needsChatOpsWelcome,
    before.chatOpsOnboardingUser,
  ]);
  expect((await users()).get("du-team-acme-022")!.credentialsExposed).toBe(false); // kept: no restoreOnDelete
});

test("directoryUserId change through the host: delete-before-replace restores the old user first", async () => {
  const users = async () => new Map((await sim.control.state()).users.map((u) => [u.id as string, u]));
  const old = (await users()).get("du-team-acme-030")!;
  let id = "du-team-acme-030";
  const r = runner(
    () =>
      new DirectoryUserSettings("moving", {
        directoryUserId: id,
        credentialsExposed: !old.credentialsExposed,
        restoreOnDelete: true,
      }),
    "moving",
  );
  await r.up();
  id = "du-team-acme-031";
  expect((await r.preview()).map((s) => s.op)).toEqual(["replace"]);
  await r.up();
  const now = await users();
  expect(now.get("du-team-acme-030")!.credentialsExposed).toBe(old.credentialsExposed);
  expect(now.get("du-team-acme-031")!.credentialsExposed).toBe(!old.credentialsExposed);
  expect(r.state().resources[0].id).toBe("du-team-acme-031");
  await r.destroy();
});

test("examples/data-sources: outputs from the simulator under mocks", async () => {
  const saved = { ...process.env };
  process.env.SECOPS_API_KEY = sim.apiKeys.viewer;
  process.env.SECOPS_BASE_URL = sim.url;
  const file = join(ROOT, "examples/data-sources/index.ts");
  expect(await declaredResources(file)).toEqual([]);
  const mod = require(file);
  const value = (o: { apply: (f: (v: unknown) => void) => void }) =>
    new Promise((resolve) => o.apply(resolve));
  expect(await value(mod.role)).toBe("VIEWER");
  expect(await value(mod.unhealthyIntegrations)).toBeGreaterThan(0);
  expect(await value(mod.indicatorCount)).toBe(9);
  expect(await value(mod.latestIndicators)).toHaveLength(5);
  process.env = saved;
});

test("secret hygiene: a VIEWER key's refused creates fail with the provider's 403, and neither key is in their errors, the state or the host's stderr", async () => {
  // The example's rules (jest evaluates the example module once, so declare them from its list).
  const { declared } = require(join(ROOT, "examples/hva-rules/index.ts"));
  const program = () =>
    declared.map(
      (d: { name: string; search: string; enabled?: boolean }) =>
        new HvaAutomationRule(d.name, { field: "name", search: d.search, enabled: d.enabled ?? true }),
    );
  const denied = runner(program, "denied", sim.apiKeys.viewer);
  const deniedSteps = await stepsOf(denied.up());
  expect(deniedSteps.length).toBeGreaterThan(0);
  expect(deniedSteps.every((s) => !s.ok && /This API key's role is VIEWER/.test(s.error ?? ""))).toBe(true);
  // The provider's own words, without gRPC's "2 UNKNOWN: " status prefix.
  expect(deniedSteps[0].error).toMatch(/^PUT \/endpoint\/hva\/automation failed \(403\): /);
  const all = [
    ...deniedSteps.map((s) => s.error ?? ""),
    denied.hostStderr,
    readFileSync(join(dir, "denied.state.json"), "utf8"),
  ].join("\n");
  expect(keysIn(all)).toEqual([]);
});

test("strict-spec through the host: refresh keeps state and warns; destroy disables and warns", async () => {
  const strict = await createSimulator({ seed: 52, strictSpec: true });
  const r = new LifecycleRunner({
    program: () => new HvaAutomationRule("strict", { field: "name", search: "strict-*" }),
    programDir: dir,
    statePath: join(dir, "strict.state.json"),
    config: { "secops:apiKey": strict.apiKeys.admin, "secops:baseUrl": strict.url },
  });
  runners.push(r);
  expect(ops(await r.up())).toEqual(["create strict"]);
  const [created] = r.state().resources;
  expect(ops(await r.refresh())).toEqual(["same strict"]);
  expect(r.state().resources).toEqual([created]);
  expect(ops(await r.destroy())).toEqual(["delete strict"]);
  const live = (await strict.control.state()).rules.find((x) => x.id === created.id);
  expect(live).toMatchObject({ enabled: false });
  expect(r.warnings()).toEqual([
    "secops: the API offers no route to read HVA rules; state was kept as it is and drift detection is unavailable for HvaAutomationRule",
    `secops: the API offers no route to delete HVA rules; rule ${created.id} was disabled, not deleted`,
  ]);
  await strict.close();
});

test("bad inputs are rejected by Check through the host, naming the property, before any request", async () => {
  const r = runner(() => {
    new HvaAutomationRule("bad-rule", { field: "name", search: "", enabled: "yes" as never });
    new DirectoryUserSettings("bad-user", { directoryUserId: "du-team-acme-001" });
  }, "bad");
  await sim.control.resetStats();
  const steps = await stepsOf(r.up());
  expect(steps.map((s) => [s.op, s.name, s.error])).toEqual([
    [
      "check-failed",
      "bad-user",
      "needsChatOpsWelcome: set at least one of needsChatOpsWelcome, chatOpsOnboardingUser, credentialsExposed",
    ],
    [
      "check-failed",
      "bad-rule",
      "search: search must be a non-empty string; enabled: enabled must be a boolean",
    ],
  ]);
  expect((await sim.control.stats()).requests).toEqual({});
  expect(r.state().resources).toEqual([]);
});

test("1,000 concurrent creates through the host reuse a bounded pool of connections", async () => {
  const [rule] = await declaredResources(
    () => new HvaAutomationRule("pool", { field: "name", search: "pool-0" }),
  );
  const { DynamicProviderHost, secret } = await import("../rig");
  const host = await DynamicProviderHost.start(dir);
  await host.configure({ "secops:apiKey": secret(sim.apiKeys.admin), "secops:baseUrl": sim.url });
  await sim.control.resetStats();
  const made = await Promise.all(
    Array.from({ length: 1000 }, (_, i) =>
      host.create(rule.urn, { ...rule.inputs, search: `pool-${i}`, enabled: true, adoptExisting: false }),
    ),
  );
  const stats = await sim.control.stats();
  await host.close();
  expect(new Set(made.map((m) => m.id)).size).toBe(1000);
  expect(stats.requests["PUT /endpoint/hva/automation"]).toBe(1000);
  expect(stats.socketsOpened).toBeGreaterThan(0);
  expect(stats.socketsOpened).toBeLessThanOrEqual(8); // maxConcurrency
}, 120_000);
