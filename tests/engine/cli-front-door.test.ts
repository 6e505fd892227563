/**
 * The front door through the real engine (CLI built from its Go modules, Automation API, native
 * plugin from PATH), with JavaScript programs (tests/engine/programs/): a user's mistakes are refused
 * before anything is written in any team, with one error that names the provider and the fix, and no
 * gRPC framing. Also: removing a client team from the program deletes that team's rules in one `up`
 * (the engine keeps the provider's inputs, the key encrypted, for exactly this).
 */
import { copyFileSync } from "node:fs";
import { join } from "node:path";
import { createSimulator, type Simulator } from "secops-sim";
import { rules, writes } from "../helpers/sim-counts";
import { engineStack, type EngineStack, type OpResult } from "../helpers/pulumi-stack";
import { built } from "../helpers/spawn";
import { VERSION } from "../../provider/version";

jest.setTimeout(300_000);
built("plugin/pulumi-resource-secops.js");
const PROGRAMS = join(__dirname, "programs");
const C1 = "team-client-1";
const C2 = "team-client-2";
let sim: Simulator;
const stacks: EngineStack[] = [];

/** Everything the user saw of a failed operation. */
const said = (r: OpResult) => `${r.message ?? ""}\n${r.stdout}\n${r.stderr}`;
const times = (text: string, part: string) => text.split(part).length - 1;

type Teams = Record<string, { rules: string[]; baseUrl?: string; apiKey?: string }>;
/** A stack of programs/teams.js with these teams (keys set as secrets). */
async function teamsStack(name: string, teams: Teams): Promise<EngineStack> {
  const s = await engineStack(name, join(PROGRAMS, "teams.js"));
  stacks.push(s);
  await setTeams(s, teams);
  return s;
}
async function setTeams(s: EngineStack, teams: Teams): Promise<void> {
  await s.config("baseUrl", sim.url);
  const plain = Object.fromEntries(
    Object.entries(teams).map(([n, t]) => [n, { rules: t.rules, baseUrl: t.baseUrl }]),
  );
  await s.config("teams", JSON.stringify(plain));
  for (const [n, t] of Object.entries(teams)) if (t.apiKey) await s.config(`${n}ApiKey`, t.apiKey, true);
}

/**
 * One stack for the tests whose one `up` is refused before anything is created (a stack less for
 * each to make): each writes its own program and config before its up, so none builds on another's.
 */
let refusals: EngineStack;
async function refusalsStack(program: string): Promise<EngineStack> {
  copyFileSync(join(PROGRAMS, program), refusals.program);
  return refusals;
}

beforeAll(async () => {
  sim = await createSimulator({ seed: 403 });
  refusals = await engineStack("refusals", join(PROGRAMS, "teams.js"));
  stacks.push(refusals);
});
afterAll(async () => {
  for (const s of stacks) s.remove();
  await sim?.close();
});

test("a misspelt Provider argument in a JavaScript program is refused by name; nothing is written", async () => {
  const s = await refusalsStack("typo.js");
  await s.config("baseUrl", sim.url);
  await s.config("key", sim.apiKeys.client1Admin, true);
  const before = await rules(sim);
  await sim.control.resetStats();
  const up = await s.op("up");
  expect(up.ok).toBe(false);
  expect(said(up)).toContain(
    'secops.Provider "c1": apikey is not an argument of secops.Provider; did you mean apiKey?',
  );
  expect(said(up)).not.toMatch(/rpc error|code = |grpc/i);
  expect(await rules(sim)).toEqual(before);
  expect(await writes(sim)).toBe(0);
});

test.each([
  [
    "provider",
    "pulumi:providers:secops resource 'client1': property apikey value {[secret]} has a problem: apikey is not a setting of the secops provider \"client1\"; did you mean apiKey?",
  ],
  [
    "rule",
    "secops:index:HvaAutomationRule resource 'dc-rule': property enabld value {false} has a problem: enabld is not an input of HvaAutomationRule; did you mean enabled?",
  ],
])(
  "a misspelt %s argument that no SDK refused: the plugin's check names it with the closest name, and the engine names the resource; nothing is written",
  async (typo, message) => {
    const s = await refusalsStack("untyped.js");
    await s.config("baseUrl", sim.url);
    await s.config("key", sim.apiKeys.client1Admin, true);
    await s.config("typo", typo);
    const before = await rules(sim);
    await sim.control.resetStats();
    for (const op of ["preview", "up"] as const) {
      const r = await s.op(op);
      expect(r.ok).toBe(false);
      const diagnostics = r.stdout.slice(r.stdout.indexOf("Diagnostics:"));
      expect(times(diagnostics, `error: ${message}`)).toBe(1);
      expect(said(r)).not.toMatch(/rpc error|code = |grpc/i);
    }
    expect(await rules(sim)).toEqual(before);
    expect(await writes(sim)).toBe(0);
  },
);

test("a misspelt secops: stack config key with dynamic resources and a data source: named once each, with the closest key; no stack trace, no contradicting warning", async () => {
  const s = await engineStack("config-typo", join(PROGRAMS, "dynamic-data.js"), {
    SECOPS_API_KEY: "",
    SECOPS_BASE_URL: "",
  });
  stacks.push(s);
  await s.config("secops:basUrl", sim.url);
  await s.config("secops:apiKey", sim.apiKeys.admin, true);
  const typo = "secops: the stack config secops:basUrl is not a setting; did you mean secops:baseUrl?";
  const before = await rules(sim);
  await sim.control.resetStats();
  for (const op of ["preview", "up"] as const) {
    const r = await s.op(op);
    expect(r.ok).toBe(false);
    const diagnostics = r.stdout.slice(r.stdout.indexOf("Diagnostics:"));
    // The data source (in the program) and the dynamic provider (its first check) each say it once.
    expect(times(diagnostics, `error: ${typo}`)).toBe(1);
    expect(
      times(diagnostics, `resource 'dc' has a problem: ${typo}`) +
        times(diagnostics, `resource 'build' has a problem: ${typo}`),
    ).toBe(1);
    expect(times(diagnostics, "error: ")).toBe(2);
    expect(said(r)).not.toMatch(
      /Unhandled exception|PromiseRejectionHandledWarning|Preview (shows|plans)|\n\s+at /,
    );
  }
  expect(await rules(sim)).toEqual(before);
  expect(await writes(sim)).toBe(0);
});

test("a misspelt secops: stack config key with native resources and a data source: the default provider's check names it once, with the closest key", async () => {
  const s = await engineStack("config-typo-native", join(PROGRAMS, "native-default.js"), {
    SECOPS_API_KEY: "",
    SECOPS_BASE_URL: "",
  });
  stacks.push(s);
  await s.config("secops:basUrl", sim.url);
  await s.config("secops:apiKey", sim.apiKeys.admin, true);
  // The SDK's default provider is named after its version: default_0_1_0.
  const typo = `error: pulumi:providers:secops resource 'default_${VERSION.replace(/\./g, "_")}': property basUrl value {${sim.url}} has a problem: basUrl is not a setting of the default secops provider (stack config secops:basUrl); did you mean baseUrl?`;
  await sim.control.resetStats();
  for (const op of ["preview", "up"] as const) {
    const r = await s.op(op);
    expect(r.ok).toBe(false);
    const diagnostics = r.stdout.slice(r.stdout.indexOf("Diagnostics:"));
    expect(times(diagnostics, typo)).toBe(1);
    expect(times(diagnostics, "error: ")).toBe(1);
    expect(said(r)).not.toMatch(
      /Unhandled exception|PromiseRejectionHandledWarning|Preview (shows|plans)|rpc error|\n\s+at /,
    );
  }
  expect(await sim.control.stats()).toMatchObject({ requests: {} });
});

type Settings = { apiKey?: string; baseUrl?: string };
const MISTAKES: Array<[string, () => Settings, string]> = [
  [
    "nokey",
    () => ({}),
    'the secops provider "nokey" has no apiKey: an explicit provider takes its key only from its own arguments (set apiKey on it)',
  ],
  [
    "badurl",
    () => ({ apiKey: sim.apiKeys.client1Admin, baseUrl: "htp:/nowhere" }),
    'the secops provider "badurl": baseUrl must be an absolute https URL such as https://api.example.com (got "htp:/nowhere")',
  ],
  [
    "refused",
    () => ({ apiKey: "simkey_not_a_key_000000000000000000" }),
    'the secops provider "refused" was refused by the API: its apiKey is not a valid key (GET /v1/auth/me answered 401). Set apiKey on the provider to a valid API key of its team',
  ],
];

test.each(MISTAKES)(
  "a named provider %s: an error naming the provider and the fix; nothing written in any team",
  async (name, settings, message) => {
    const s = await refusalsStack("teams.js");
    await setTeams(s, { [name]: { ...settings(), rules: ["fd-a-*", "fd-b-*", "fd-c-*"] } });
    const before = await rules(sim);
    await sim.control.resetStats();
    const up = await s.op("up");
    expect(up.ok).toBe(false);
    expect(up.stdout).toContain(message);
    expect(said(up)).not.toMatch(/rpc error|code = Unknown|grpc/i);
    // One error, for the provider: nokey and badurl fail its CheckConfig, a refused key its Configure
    // (which looks the key up; before, each of the three resources reported it).
    const diagnostics = up.stdout.slice(up.stdout.indexOf("Diagnostics:"));
    expect(times(diagnostics, message)).toBe(1);
    expect(await rules(sim)).toEqual(before);
    expect(await writes(sim)).toBe(0);
  },
);

test("another team's key given to an existing provider: nothing is created, updated or deleted in any team, new resources included", async () => {
  const s = await teamsStack("swap", { c1: { apiKey: sim.apiKeys.client1Admin, rules: ["swap-a-*"] } });
  expect((await s.op("up")).ok).toBe(true);
  const before = await rules(sim);
  expect(before).toContain(`${C1} swap-a-* true`);
  await setTeams(s, { c1: { apiKey: sim.apiKeys.client2Admin, rules: ["swap-a-*", "swap-b-*"] } });
  await sim.control.resetStats();
  const up = await s.op("up");
  expect(up.ok).toBe(false);
  const refusal =
    'error: the secops provider "c1" holds team team-client-1\'s resources, and its new apiKey is a key of team team-client-2; nothing was changed. A provider never moves to another team: give it back a key of team team-client-1, and to manage team team-client-2 declare a provider of a new name with that key (to move rules, create them under the new provider and remove them from this one)';
  // Once, for the provider (the Diagnostics section repeats the progress line), without gRPC framing.
  expect(up.stdout).toContain(refusal);
  expect(up.stdout).not.toMatch(/rpc error|code = /);
  expect(await rules(sim)).toEqual(before);
  expect(await writes(sim)).toBe(0);
});

test("removing a client team from the program deletes that team's rules in one up", async () => {
  const both: Teams = {
    c1: { apiKey: sim.apiKeys.client1Admin, rules: ["rm-a-*", "rm-b-*"] },
    c2: { apiKey: sim.apiKeys.client2Admin, rules: ["rm-a-*", "rm-b-*"] },
  };
  const s = await teamsStack("remove-team", both);
  const before = await rules(sim);
  expect((await s.op("up")).summary).toEqual({ create: 7 });
  expect(await rules(sim)).toEqual(
    [...before, `${C1} rm-a-* true`, `${C1} rm-b-* true`, `${C2} rm-a-* true`, `${C2} rm-b-* true`].sort(),
  );
  await setTeams(s, { c1: both.c1 });
  const up = await s.op("up");
  expect(up.summary).toEqual({ delete: 3, same: 4 });
  expect(await rules(sim)).toEqual([...before, `${C1} rm-a-* true`, `${C1} rm-b-* true`].sort());
  expect((await s.op("destroy")).summary).toEqual({ delete: 4 });
  expect(await rules(sim)).toEqual(before);
});
