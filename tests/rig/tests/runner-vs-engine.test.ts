/**
 * One scenario suite, two drivers: each scenario runs through the real engine (CLI built from its Go
 * modules, Automation API) and through the offline runner, each against a simulator of its own with
 * the same seed, with the same program (programs/objects.js: native providers per team). After every
 * step both simulators must hold the same rules (team, search, enabled), and a step fails in both or
 * in neither, for the same reason. Where they differ on purpose, the test asserts the difference that
 * tests/rig/README.md lists as a limit of the runner.
 */
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { SecOpsClient } from "pulumi-secops/client";
import { duplicateRuleReason, heldByThisReason } from "pulumi-secops/resources/hva-automation-rule";
import { duplicateUserReason } from "pulumi-secops/resources/directory-user-settings";
import { createSimulator, type Simulator } from "secops-sim";
import { LifecycleRunner, linkPackage } from "..";
import { rules } from "../../helpers/sim-counts";
import { engineStack, type EngineStack } from "../../helpers/pulumi-stack";
import { ROOT, built } from "../../helpers/spawn";

jest.setTimeout(300_000);
built("plugin/pulumi-resource-secops.js");
const PROGRAM = join(__dirname, "..", "..", "engine", "programs", "objects.js");
const SEED = 431;

type Declared = {
  name: string;
  provider: string;
  search?: string;
  adoptExisting?: boolean;
  user?: string;
  needsChatOpsWelcome?: boolean;
};
type Keys = Record<string, "c1" | "c2">;
/** One step: the program's resources and which team's key each provider gets, then an operation. */
interface Step {
  resources: Declared[];
  keys: Keys;
  op: "preview" | "up" | "refresh" | "destroy";
  /** Done in the product by hand before the step. */
  byHand?: (key: (team: "c1" | "c2") => string, url: string) => Promise<void>;
}
/** What a step left: whether it succeeded, the text it failed with, every team's rules and users. */
interface Outcome {
  ok: boolean;
  said: string;
  rules: string[];
  users: string[];
}

/** Every directory user's three flags, as "id flags" lines. */
async function users(sim: Simulator): Promise<string[]> {
  const flags = ["needsChatOpsWelcome", "chatOpsOnboardingUser", "credentialsExposed"];
  return (await sim.control.state()).users
    .map((u) => `${String(u.id)} ${flags.map((f) => String(u[f])).join(" ")}`)
    .sort();
}

/**
 * The program file evaluated afresh, with this file's modules: jest's module registry would hand back
 * the first run's exports, and jest.isolateModules would load a new copy of every module each time
 * (each copy of @pulumi/pulumi and of `tmp` adds a process `exit` listener: eleven runs printed Node's
 * MaxListenersExceededWarning).
 */
function evaluateAfresh(): unknown {
  const module = { exports: {} };
  new Function("require", "module", "exports", readFileSync(PROGRAM, "utf8"))(
    require,
    module,
    module.exports,
  );
  return module.exports;
}

/** The engine's run of a scenario. */
async function throughEngine(project: string, steps: Step[]): Promise<Outcome[]> {
  const sim = await createSimulator({ seed: SEED });
  const s: EngineStack = await engineStack(project, PROGRAM);
  try {
    await s.config("front", "native");
    await s.config("baseUrl", sim.url);
    const out: Outcome[] = [];
    for (const step of steps) {
      await s.config("resources", JSON.stringify(step.resources));
      for (const [provider, team] of Object.entries(step.keys))
        await s.config(`${provider}ApiKey`, keyOf(sim, team), true);
      await step.byHand?.((t) => keyOf(sim, t), sim.url);
      const r = await s.op(step.op);
      out.push({
        ok: r.ok,
        said: `${r.message ?? ""}\n${r.stdout}`,
        rules: await rules(sim),
        users: await users(sim),
      });
    }
    return out;
  } finally {
    s.remove();
    await sim.close();
  }
}

/** The offline runner's run of the same scenario. */
async function throughRunner(project: string, steps: Step[]): Promise<Outcome[]> {
  const sim = await createSimulator({ seed: SEED });
  const dir = mkdtempSync(join(tmpdir(), "secops-runner-vs-engine-"));
  linkPackage(dir, ROOT);
  const out: Outcome[] = [];
  try {
    for (const step of steps) {
      const config: Record<string, string> = {
        [`${project}:front`]: "native",
        [`${project}:baseUrl`]: sim.url,
        [`${project}:resources`]: JSON.stringify(step.resources),
      };
      for (const [provider, team] of Object.entries(step.keys))
        config[`${project}:${provider}ApiKey`] = keyOf(sim, team);
      await step.byHand?.((t) => keyOf(sim, t), sim.url);
      const runner = new LifecycleRunner({
        program: evaluateAfresh,
        programDir: dir,
        statePath: join(dir, "state.json"),
        project,
        config,
        secretKeys: Object.keys(config).filter((k) => k.endsWith("ApiKey")),
        progress: false,
      });
      try {
        const failed = (await runner[step.op]()).filter((x) => !x.ok);
        out.push({
          ok: failed.length === 0,
          said: failed.map((x) => x.error).join("\n"),
          rules: await rules(sim),
          users: await users(sim),
        });
      } catch (err) {
        out.push({
          ok: false,
          said: String((err as Error).message),
          rules: await rules(sim),
          users: await users(sim),
        });
      } finally {
        await runner.close();
      }
    }
    return out;
  } finally {
    rmSync(dir, { recursive: true, force: true });
    await sim.close();
  }
}

const keyOf = (sim: Simulator, team: "c1" | "c2") =>
  team === "c1" ? sim.apiKeys.client1Admin : sim.apiKeys.client2Admin;

/** Both drivers' outcomes, step by step. */
async function both(project: string, steps: Step[]): Promise<{ engine: Outcome[]; runner: Outcome[] }> {
  return { engine: await throughEngine(project, steps), runner: await throughRunner(project, steps) };
}

const rule = (name: string, provider: string, search: string): Declared => ({ name, provider, search });
const TWO_TEAMS = [
  rule("c1-dc", "c1", "rve-dc-*"),
  rule("c1-web", "c1", "rve-web-*"),
  rule("c2-db", "c2", "rve-db-*"),
];
const KEYS: Keys = { c1: "c1", c2: "c2" };

test("a lifecycle: preview, up, a rule disabled by hand, refresh, repair, a rule removed, destroy", async () => {
  const disable = async (key: (t: "c1" | "c2") => string, url: string) => {
    const c = new SecOpsClient({ apiKey: key("c1"), baseUrl: url });
    const [dc] = (await c.listHvaRules()).filter((r) => r.search === "rve-dc-*");
    await c.setHvaRuleEnabled(dc.id, false);
    await c.close();
  };
  const steps: Step[] = [
    { resources: TWO_TEAMS, keys: KEYS, op: "preview" },
    { resources: TWO_TEAMS, keys: KEYS, op: "up" },
    { resources: TWO_TEAMS, keys: KEYS, op: "refresh", byHand: disable },
    { resources: TWO_TEAMS, keys: KEYS, op: "up" },
    { resources: TWO_TEAMS.slice(1), keys: KEYS, op: "up" },
    { resources: TWO_TEAMS.slice(1), keys: KEYS, op: "destroy" },
  ];
  const { engine, runner } = await both("rve-life", steps);
  expect(runner.map((o) => [o.ok, o.rules, o.users])).toEqual(engine.map((o) => [o.ok, o.rules, o.users]));
  expect(engine.map((o) => o.ok)).toEqual([true, true, true, true, true, true]);
  expect(engine[3].rules.filter((r) => r.includes("rve-dc-*"))).toEqual(["team-client-1 rve-dc-* true"]);
});

test("two resources declaring one rule (adoptExisting on a managed one), or one user: refused by both, nothing written", async () => {
  const copy = { ...rule("c1-dc-copy", "c1", "rve-dc-*"), adoptExisting: true };
  const user = "du-team-client-1-004";
  const welcome = { name: "welcome", provider: "c1", user, needsChatOpsWelcome: true };
  const goodbye = { name: "goodbye", provider: "c1", user, needsChatOpsWelcome: false };
  const steps: Step[] = [
    { resources: [...TWO_TEAMS, welcome], keys: KEYS, op: "up" },
    { resources: [...TWO_TEAMS, welcome, copy], keys: KEYS, op: "preview" },
    { resources: [...TWO_TEAMS, welcome, copy], keys: KEYS, op: "up" },
    { resources: [...TWO_TEAMS, welcome, goodbye], keys: KEYS, op: "preview" },
  ];
  const { engine, runner } = await both("rve-twice", steps);
  expect(runner.map((o) => [o.ok, o.rules, o.users])).toEqual(engine.map((o) => [o.ok, o.rules, o.users]));
  expect(engine.map((o) => o.ok)).toEqual([true, false, false, false]);
  // The same reason, naming the other resource (either may be the one checked second).
  const urn = (n: string) => `urn:pulumi:dev::rve-twice::secops:index:HvaAutomationRule::${n}`;
  // Or, when the newcomer is checked first, the resource of the state names it as the one to remove.
  const reasons = [
    ...["c1-dc", "c1-dc-copy"].map((n) => duplicateRuleReason(urn(n), "name", "rve-dc-*")),
    heldByThisReason(
      { urn: urn("c1-dc-copy"), provider: 'the secops provider "c1"' },
      undefined,
      "name",
      "rve-dc-*",
    ),
  ];
  const flat = (t: string) => t.replace(/\s+/g, " ");
  for (const o of [...engine.slice(1, 3), ...runner.slice(1, 3)])
    expect(reasons.some((r) => flat(o.said).includes(flat(r)))).toBe(true);
  const userUrn = (n: string) => `urn:pulumi:dev::rve-twice::secops:index:DirectoryUserSettings::${n}`;
  const userReasons = ["welcome", "goodbye"].map((n) => duplicateUserReason(userUrn(n), user));
  for (const o of [engine[3], runner[3]])
    expect(userReasons.some((r) => flat(o.said).includes(flat(r)))).toBe(true);
});

test("another team's key given to an existing provider with a new rule under it: refused by both, nothing written", async () => {
  const steps: Step[] = [
    { resources: TWO_TEAMS, keys: KEYS, op: "up" },
    { resources: [...TWO_TEAMS, rule("c1-new", "c1", "rve-new-*")], keys: { c1: "c2", c2: "c2" }, op: "up" },
  ];
  const { engine, runner } = await both("rve-swap", steps);
  expect(runner.map((o) => [o.ok, o.rules, o.users])).toEqual(engine.map((o) => [o.ok, o.rules, o.users]));
  expect(engine[1].ok).toBe(false);
  const refusal =
    'the secops provider "c1" holds team team-client-1\'s resources, and its new apiKey is a key of team team-client-2; nothing was changed.';
  expect(engine[1].said).toContain(refusal);
  expect(runner[1].said).toContain(refusal);
});

test("a client team removed from the program: the engine deletes its rules in one up; the runner refuses (a limit)", async () => {
  const steps: Step[] = [
    { resources: TWO_TEAMS, keys: KEYS, op: "up" },
    { resources: TWO_TEAMS.slice(0, 2), keys: { c1: "c1" }, op: "up" },
  ];
  const { engine, runner } = await both("rve-leave", steps);
  expect(engine[0].rules).toEqual(runner[0].rules);
  expect(engine[1].ok).toBe(true);
  expect(engine[1].rules.filter((r) => r.includes("rve-db-*"))).toEqual([]);
  // tests/rig/README.md: the runner keeps no provider's key in its state.
  expect(runner[1].ok).toBe(false);
  expect(runner[1].said).toContain("is no longer declared by the program; its resources cannot be reached");
  expect(runner[1].rules).toEqual(runner[0].rules);
});
