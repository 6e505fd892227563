/**
 * The offline runner with native programs: the plugin spawned per provider instance, `import`, the
 * import option, and strict-spec warnings as on the dynamic path.
 */
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import * as native from "pulumi-secops/native";
import { LifecycleRunner, StepFailedError, stepsOf } from "..";
import { createSimulator, type Simulator } from "secops-sim";
import { built } from "../../helpers/spawn";

built("native/plugin/main.js");
const HVA = "secops:index:HvaAutomationRule";
const USERS = "secops:index:DirectoryUserSettings";
let sim: Simulator;
let dir: string;
const runners: LifecycleRunner[] = [];

function runnerFor(program: () => void, simulator = sim): LifecycleRunner {
  const runner = new LifecycleRunner({
    program,
    programDir: dir,
    statePath: join(dir, "state.json"),
    config: { "secops:apiKey": simulator.apiKeys.admin, "secops:baseUrl": simulator.url },
    project: "native",
  });
  runners.push(runner);
  return runner;
}

beforeEach(async () => {
  sim = await createSimulator({ seed: 43 });
  dir = mkdtempSync(join(tmpdir(), "secops-native-runner-"));
});
afterEach(async () => {
  await Promise.all(runners.splice(0).map((r) => r.close()));
  await sim.close();
  rmSync(dir, { recursive: true, force: true });
});

test("import(type, name, id) adopts a rule and a user; the program that declares them shows no change", async () => {
  const rule = (await sim.control.state()).rules.find((r) => r.teamId === "team-acme")!;
  const user = (await sim.control.state()).users.find((u) => u.id === "du-team-acme-005")!;
  const program = () => {
    new native.HvaAutomationRule("legacy", {
      field: String(rule.searchField),
      search: String(rule.search),
      enabled: Boolean(rule.enabled),
    });
    new native.DirectoryUserSettings("ada", {
      directoryUserId: "du-team-acme-005",
      needsChatOpsWelcome: Boolean(user.needsChatOpsWelcome),
      chatOpsOnboardingUser: Boolean(user.chatOpsOnboardingUser),
      credentialsExposed: Boolean(user.credentialsExposed),
    });
  };
  const runner = runnerFor(program);
  await sim.control.resetStats();
  expect(await runner.import(HVA, "legacy", String(rule.id))).toMatchObject({ op: "import", ok: true });
  expect(await runner.import(USERS, "ada", "du-team-acme-005")).toMatchObject({ op: "import", ok: true });
  await expect(runner.import(HVA, "ghost", "hva-none")).rejects.toMatchObject({
    message: `import: 1 of 1 resource(s) failed:\n  ${HVA} (ghost): error: import: no ${HVA} with id hva-none exists`,
    steps: [expect.objectContaining({ ok: false, error: `import: no ${HVA} with id hva-none exists` })],
  });
  const writes = Object.keys((await sim.control.stats()).requests).filter((k) => !k.startsWith("GET"));
  expect(writes).toEqual([]);
  expect(runner.state().resources.map((r) => [r.name, r.id])).toEqual([
    ["ada", "du-team-acme-005"],
    ["legacy", rule.id],
  ]);
  const up = await runner.up();
  expect(up.map((s) => [s.name, s.op, s.ok])).toEqual([
    ["ada", "same", true],
    ["legacy", "same", true],
  ]);
});

test("the import option adopts a matching object and refuses one that differs, writing nothing", async () => {
  const rule = (await sim.control.state()).rules.find((r) => r.teamId === "team-acme" && r.enabled === true)!;
  let enabled = false;
  const runner = runnerFor(() => {
    new native.HvaAutomationRule(
      "adopted",
      { field: String(rule.searchField), search: String(rule.search), enabled },
      { import: String(rule.id) },
    );
  });
  await sim.control.resetStats();
  const refused = await stepsOf(runner.up());
  expect(refused).toEqual([
    expect.objectContaining({
      op: "import",
      ok: false,
      changes: ["enabled: true → false"],
      error: `import: the existing ${HVA} ${rule.id} differs from the program's inputs (enabled: true → false); make the program match it, then import again`,
    }),
  ]);
  expect(runner.state().resources).toEqual([]);
  enabled = true;
  expect((await runner.up()).map((s) => [s.op, s.ok])).toEqual([["import", true]]);
  expect(runner.state().resources[0].id).toBe(rule.id);
  expect(Object.keys((await sim.control.stats()).requests).filter((k) => !k.startsWith("GET"))).toEqual([]);
});

test("strict-spec: a native refresh warns with the same words as the dynamic path and keeps state", async () => {
  const strict = await createSimulator({ seed: 44, strictSpec: true });
  try {
    const runner = runnerFor(() => {
      new native.HvaAutomationRule("dc", { field: "name", search: "strict-native-*" });
    }, strict);
    expect((await runner.up()).map((s) => [s.op, s.ok])).toEqual([["create", true]]);
    const refresh = await runner.refresh();
    expect(refresh.map((s) => [s.op, s.ok])).toEqual([["same", true]]);
    expect(runner.warnings()).toEqual([
      "secops: the API offers no route to read HVA rules; state was kept as it is and drift detection is unavailable for HvaAutomationRule",
    ]);
    const destroy = await runner.destroy();
    expect(destroy.map((s) => [s.op, s.ok])).toEqual([["delete", true]]);
    expect(runner.warnings()[1]).toMatch(
      /^secops: the API offers no route to delete HVA rules; rule \S+ was disabled, not deleted$/,
    );
    const state = readFileSync(join(dir, "state.json"), "utf8");
    expect(state).not.toContain(strict.apiKeys.admin);
  } finally {
    await strict.close();
  }
});

test("issue 19.6: a replace whose old delete fails keeps the old rule in state and deletes it on the next up", async () => {
  let search = "replace-old-*";
  const runner = runnerFor(() => {
    new native.HvaAutomationRule("moving", { field: "name", search });
  });
  await runner.up();
  const live = async (s: string) =>
    (await sim.control.state()).rules.filter((r) => r.search === s).map((r) => String(r.id));
  const [oldId] = await live("replace-old-*");
  search = "replace-new-*";
  await sim.control.setFaults([
    { kind: "500", method: "DELETE", path: "/endpoint/hva/automation", times: 50 },
  ]);
  await expect(runner.up()).rejects.toThrow();
  await sim.control.clearFaults();
  const saved = JSON.parse(readFileSync(join(dir, "state.json"), "utf8"));
  expect(saved.pendingDeletes.map((r: { id: string }) => r.id)).toEqual([oldId]);
  expect(await live("replace-old-*")).toEqual([oldId]);
  // The next up (nothing else to change) deletes it: the old rule is gone, the new one stays.
  await runner.up();
  expect(await live("replace-old-*")).toEqual([]);
  expect(await live("replace-new-*")).toHaveLength(1);
  expect(JSON.parse(readFileSync(join(dir, "state.json"), "utf8")).pendingDeletes).toBeUndefined();
});

test("issue 23.1: a provider removed with its rule: preview fails as up does, naming the remedy; nothing is deleted", async () => {
  let keep = true;
  const program = () => {
    const blue = keep
      ? new native.Provider("blue", { apiKey: sim.apiKeys.client1Admin, baseUrl: sim.url })
      : undefined;
    if (blue)
      new native.HvaAutomationRule("blue-db", { field: "name", search: "blue-db-*" }, { provider: blue });
    new native.HvaAutomationRule("dc", { field: "name", search: "dc-native-*" });
  };
  const runner = runnerFor(program);
  expect((await runner.up()).map((s) => [s.name, s.op, s.ok])).toEqual([
    ["blue-db", "create", true],
    ["dc", "create", true],
  ]);
  const blueRule = runner.state().resources.find((r) => r.name === "blue-db")!.id;
  keep = false;
  await sim.control.resetStats();
  const remedy = "declare the provider again until an up has deleted its resources, then remove it";
  const preview = (await stepsOf(runner.preview())).find((s) => s.name === "blue-db")!;
  expect(preview).toMatchObject({ op: "delete", ok: false });
  expect(preview.error).toContain("is no longer declared by the program");
  expect(preview.error).toContain(remedy);
  const up = (await stepsOf(runner.up())).find((s) => s.name === "blue-db")!;
  expect({ ok: up.ok, error: up.error }).toEqual({ ok: false, error: preview.error });
  // The rule is still there, and still in the state: nothing was lost or written.
  expect((await sim.control.state()).rules.some((r) => r.id === blueRule)).toBe(true);
  expect(runner.state().resources.some((r) => r.id === blueRule)).toBe(true);
  const writes = Object.keys((await sim.control.stats()).requests).filter((k) => !k.startsWith("GET "));
  expect(writes).toEqual([]);
});

/** How many rules each team has (the API's state, every team). */
async function rulesPerTeam(simulator = sim): Promise<Record<string, number>> {
  const counts: Record<string, number> = {};
  for (const r of (await simulator.control.state()).rules)
    counts[String(r.teamId)] = (counts[String(r.teamId)] ?? 0) + 1;
  return counts;
}
const requestsSent = async () => Object.keys((await sim.control.stats()).requests);

test("issue 32.4: two resources with one URN are refused as the engine does, before anything is sent", async () => {
  const runner = runnerFor(() => {
    new native.HvaAutomationRule("dc", { field: "name", search: "dc-one-*" });
    new native.HvaAutomationRule("dc", { field: "name", search: "dc-two-*" });
  });
  const before = await rulesPerTeam();
  await sim.control.resetStats();
  const message = `Duplicate resource URN 'urn:pulumi:dev::native::${HVA}::dc'; try giving it a unique name`;
  expect.assertions(5);
  for (const step of [() => runner.preview(), () => runner.up()])
    await expect(step()).rejects.toThrow(new Error(message));
  expect(await requestsSent()).toEqual([]);
  expect(await rulesPerTeam()).toEqual(before);
  expect(runner.state().resources).toEqual([]);
});

test("issue 32.4: an import of a rule another resource holds is refused, naming both, before anything is sent", async () => {
  expect.assertions(7);
  let adopt: "none" | "held" = "none";
  const runner = runnerFor(() => {
    new native.HvaAutomationRule("dc", { field: "name", search: "held-dc-*" });
    const id = runner.state().resources.find((r) => r.name === "dc")?.id ?? "";
    if (adopt === "held")
      new native.HvaAutomationRule("dc-again", { field: "name", search: "held-dc-*" }, { import: id });
  });
  expect((await runner.up()).map((s) => [s.name, s.op, s.ok])).toEqual([["dc", "create", true]]);
  const held = runner.state().resources[0];
  const before = await rulesPerTeam();
  await sim.control.resetStats();
  adopt = "held";
  const again = `urn:pulumi:dev::native::${HVA}::dc-again`;
  const refusal = `import of ${held.id} as ${again} refused: ${held.urn} already holds it; an object held by two resources is deleted under one of them when the other goes`;
  await expect(runner.preview()).rejects.toThrow(new Error(refusal));
  await expect(runner.up()).rejects.toThrow(new Error(refusal));
  // `pulumi import` of the same rule under another name: refused the same way, as a failed step.
  await expect(runner.import(HVA, "dc-again", held.id)).rejects.toMatchObject({
    message: `import: 1 of 1 resource(s) failed:\n  ${HVA} (dc-again): error: ${refusal}`,
    steps: [expect.objectContaining({ op: "import", ok: false, error: refusal })],
  });
  expect(await requestsSent()).toEqual([]);
  expect(await rulesPerTeam()).toEqual(before);
  expect(runner.state().resources).toEqual([held]);
});

test("issue 32.4: two resources importing one rule are both refused, named together", async () => {
  expect.assertions(4);
  const rule = (await sim.control.state()).rules.find((r) => r.teamId === "team-acme")!;
  const args = {
    field: String(rule.searchField),
    search: String(rule.search),
    enabled: Boolean(rule.enabled),
  };
  const runner = runnerFor(() => {
    new native.HvaAutomationRule("first", args, { import: String(rule.id) });
    new native.HvaAutomationRule("second", { ...args }, { import: String(rule.id) });
  });
  const before = await rulesPerTeam();
  await sim.control.resetStats();
  const [first, second] = ["first", "second"].map((n) => `urn:pulumi:dev::native::${HVA}::${n}`);
  await expect(runner.up()).rejects.toThrow(
    new Error(
      `import of ${rule.id} as ${first} refused: ${second} already holds it; an object held by two resources is deleted under one of them when the other goes`,
    ),
  );
  expect(await requestsSent()).toEqual([]);
  expect(await rulesPerTeam()).toEqual(before);
  expect(runner.state().resources).toEqual([]);
});

test("issue 32.3: a provider's refusal reads as the Pulumi CLI prints it, never with gRPC's status framing", async () => {
  expect.assertions(19);
  let key = sim.apiKeys.client1Admin;
  let extra = false;
  const runner = runnerFor(() => {
    const blue = new native.Provider("blue", { apiKey: key, baseUrl: sim.url });
    new native.HvaAutomationRule("blue-db", { field: "name", search: "blue-db-*" }, { provider: blue });
    if (extra)
      new native.HvaAutomationRule("blue-web", { field: "name", search: "blue-web-*" }, { provider: blue });
  });
  await runner.up();
  // Another team's key given to the existing provider, with a new rule under it: the provider is
  // refused before any of its resources is touched, as the engine's DiffConfig refuses it (issue 42.4:
  // the runner created the new rule in the other team), with the plugin's words; nothing is sent.
  key = sim.apiKeys.client2Admin;
  extra = true;
  const before = await rulesPerTeam();
  await sim.control.resetStats();
  const refusal =
    'the secops provider "blue" holds team team-client-1\'s resources, and its new apiKey is a key of team team-client-2; nothing was changed. A provider never moves to another team: give it back a key of team team-client-1, and to manage team team-client-2 declare a provider of a new name with that key (to move rules, create them under the new provider and remove them from this one)';
  for (const command of ["preview", "up", "refresh", "destroy"] as const) {
    const err = await runner[command]().catch((e: StepFailedError) => e);
    expect(err).toBeInstanceOf(StepFailedError);
    const [step] = (err as StepFailedError).steps;
    expect(step.error).toBe(refusal);
    expect((err as Error).message).toMatch(
      new RegExp(`^${command}: \\d of \\d resource\\(s\\) failed:\\n  ${HVA} \\(blue-\\w+\\): error: `),
    );
    expect((err as Error).message).not.toMatch(/FAILED_PRECONDITION|Error: \d|^\d+ [A-Z_]+:/m);
  }
  const writes = (await requestsSent()).filter((k) => !k.startsWith("GET "));
  expect(writes).toEqual([]);
  expect(await rulesPerTeam()).toEqual(before);
  key = sim.apiKeys.client1Admin;
  extra = false;
  expect((await runner.destroy()).map((s) => [s.op, s.ok])).toEqual([["delete", true]]);
});
