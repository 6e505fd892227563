/**
 * One live object, one resource, through the real engine (CLI built from its Go modules, Automation
 * API, the native plugin and Pulumi's dynamic provider host): two resources of one provider that
 * declare the same rule or the same directory user are refused at Check, naming the other resource's
 * URN and the fix, before anything of theirs is written; adoptExisting never takes a rule another
 * resource of the stack holds; a rule adopted in the up that removes the resource holding it (under
 * the same provider or another of the team) is kept; a rename with aliases is no duplicate. The
 * simulator's rules and users are counted after each step.
 */
import { join } from "node:path";
import { createSimulator, type Simulator } from "secops-sim";
import { duplicateRuleReason, heldByThisReason } from "pulumi-secops/resources/hva-automation-rule";
import { duplicateUserReason } from "pulumi-secops/resources/directory-user-settings";
import { rules, writes } from "../helpers/sim-counts";
import { engineStack, type EngineStack, type OpResult } from "../helpers/pulumi-stack";
import { built } from "../helpers/spawn";

jest.setTimeout(300_000);
built("plugin/pulumi-resource-secops.js");
const PROGRAM = join(__dirname, "programs", "objects.js");
const C1 = "team-client-1";
let sim: Simulator;
const stacks: EngineStack[] = [];

type Declared = {
  name: string;
  provider?: string;
  search?: string;
  adoptExisting?: boolean;
  user?: string;
  needsChatOpsWelcome?: boolean;
  aliases?: string[];
};

/** Everything the user saw of an operation. */
const said = (r: OpResult) => `${r.message ?? ""}\n${r.stdout}\n${r.stderr}`;
const flat = (text: string) => text.replace(/\s+/g, " ");

/**
 * The engine checks the resources in the order their registrations reach it, which the program does
 * not fix: of two resources declaring one object, the one checked second is refused, naming the first.
 * True when the output shows one of `names` refused for `property` = `value` naming the other.
 */
function refusedOneOf(
  text: string,
  names: [string, string],
  property: string,
  value: string,
  reason: (other: string) => string,
): boolean {
  const [a, b] = names;
  return [
    [a, b],
    [b, a],
  ].some(([refused, other]) =>
    flat(text).includes(
      flat(`resource '${refused}': property ${property} value {${value}} has a problem: ${reason(other)}`),
    ),
  );
}

const urn = (project: string, type: string, name: string) => `urn:pulumi:dev::${project}::${type}::${name}`;
const RULE = "secops:index:HvaAutomationRule";
const USER = "secops:index:DirectoryUserSettings";

async function objectsStack(project: string, front: "native" | "dynamic"): Promise<EngineStack> {
  const s = await engineStack(project, PROGRAM);
  stacks.push(s);
  await s.config("front", front);
  await s.config("baseUrl", sim.url);
  await s.config("c1ApiKey", sim.apiKeys.client1Admin, true);
  if (front === "dynamic") {
    await s.config("secops:baseUrl", sim.url);
    await s.config("secops:apiKey", sim.apiKeys.client1Admin, true);
  }
  return s;
}
const declare = (s: EngineStack, resources: Declared[]) => s.config("resources", JSON.stringify(resources));

/** Every user's needsChatOpsWelcome, as "id value" lines. */
async function welcome(): Promise<string[]> {
  const { users } = await sim.control.state();
  return users.map((u) => `${String(u.id)} ${String(u.needsChatOpsWelcome)}`).sort();
}

beforeAll(async () => {
  sim = await createSimulator({ seed: 421 });
});
afterAll(async () => {
  for (const s of stacks) s.remove();
  await sim?.close();
});

test("adoptExisting on a second resource for a rule the stack manages is refused at Check, naming both; nothing is written", async () => {
  const s = await objectsStack("adopt-twice", "native");
  await declare(s, [{ name: "dc", provider: "c1", search: "oo-dc-*" }]);
  expect((await s.op("up")).ok).toBe(true);
  const before = await rules(sim);
  expect(before.filter((r) => r.includes("oo-dc-*"))).toEqual([`${C1} oo-dc-* true`]);

  await declare(s, [
    { name: "dc", provider: "c1", search: "oo-dc-*" },
    { name: "dc-copy", provider: "c1", search: "oo-dc-*", adoptExisting: true },
  ]);
  const reason = (name: string) => duplicateRuleReason(urn("adopt-twice", RULE, name), "name", "oo-dc-*");
  // Checked after the newcomer, the resource in the state names it as the one to remove.
  const held = heldByThisReason(
    { urn: urn("adopt-twice", RULE, "dc-copy"), provider: 'the secops provider "c1"' },
    undefined,
    "name",
    "oo-dc-*",
  );
  const heldRefusal = flat(`resource 'dc': property search value {oo-dc-*} has a problem: ${held}`);
  await sim.control.resetStats();
  for (const op of ["preview", "up"] as const) {
    const r = await s.op(op);
    expect(r.ok).toBe(false);
    expect(
      refusedOneOf(said(r), ["dc", "dc-copy"], "search", "oo-dc-*", reason) ||
        flat(said(r)).includes(heldRefusal),
    ).toBe(true);
    expect(said(r)).not.toMatch(/rpc error|code = /);
  }
  expect(await rules(sim)).toEqual(before);
  expect(await writes(sim)).toBe(0);
  // Whatever the order, the fixed program converges on the one rule and a destroy removes it once.
  await declare(s, [{ name: "dc", provider: "c1", search: "oo-dc-*" }]);
  const fixed = await s.op("up");
  expect(fixed.ok).toBe(true);
  expect(await rules(sim)).toEqual(before);
  // dc-copy is in the state only when its adoption finished before dc was checked (a CI run at
  // a971dbc; data-safety 4c forces that order): then it goes and the rule stays with dc.
  if (fixed.summary?.delete)
    expect(flat(fixed.stdout)).toContain(`of this stack holds it; this resource no longer does`);
  expect((await s.op("destroy")).ok).toBe(true);
  expect((await rules(sim)).filter((r) => r.includes("oo-dc-*"))).toEqual([]);
});

test("two HvaAutomationRules with the same field and search (dynamic resources): the second is refused naming the first", async () => {
  const s = await objectsStack("dyn-twice", "dynamic");
  await declare(s, [
    { name: "first", search: "oo-dyn-*" },
    { name: "second", search: "oo-dyn-*" },
  ]);
  const before = await rules(sim);
  await sim.control.resetStats();
  const preview = await s.op("preview");
  expect(preview.ok).toBe(false);
  const dynType = "pulumi-nodejs:dynamic/secops:HvaAutomationRule";
  const reason = (name: string) => duplicateRuleReason(urn("dyn-twice", dynType, name), "name", "oo-dyn-*");
  expect(refusedOneOf(said(preview), ["first", "second"], "search", "oo-dyn-*", reason)).toBe(true);
  expect(await writes(sim)).toBe(0);
  expect(await rules(sim)).toEqual(before);
  // Declared once, a dynamic rule is made and deleted once: cli-hva-rules.test.ts (the same path).
});

test("two DirectoryUserSettings for one user, true and false: refused at Check naming the first; the user is unchanged", async () => {
  const s = await objectsStack("user-twice", "native");
  const user = `du-${C1}-003`;
  const before = await welcome();
  await declare(s, [
    { name: "welcome-on", provider: "c1", user, needsChatOpsWelcome: true },
    { name: "welcome-off", provider: "c1", user, needsChatOpsWelcome: false },
  ]);
  await sim.control.resetStats();
  const preview = await s.op("preview");
  expect(preview.ok).toBe(false);
  const reason = (name: string) => duplicateUserReason(urn("user-twice", USER, name), user);
  const names: [string, string] = ["welcome-on", "welcome-off"];
  expect(refusedOneOf(said(preview), names, "directoryUserId", user, reason)).toBe(true);
  expect(await writes(sim)).toBe(0);
  const up = await s.op("up");
  expect(up.ok).toBe(false);
  expect(refusedOneOf(said(up), names, "directoryUserId", user, reason)).toBe(true);
  // The resource checked first may have been written before the second was checked (the engine
  // runs creates while it checks): at most one of the two took effect, never both.
  expect(await writes(sim)).toBeLessThanOrEqual(1);
  const others = (lines: string[]) => lines.filter((l) => !l.startsWith(`${user} `));
  expect(others(await welcome())).toEqual(others(before));
});

test("in one up, a rule adopted from a resource leaving the stack (same provider), a rule moved to another provider of the team while its old provider leaves, and a rename with aliases: rules kept, nothing written", async () => {
  const s = await objectsStack("moves", "native");
  // Providers of one team, each a plugin process of its own: c1 stays, c1c leaves, c1b arrives.
  await s.config("c1bApiKey", sim.apiKeys.client1Admin, true);
  await s.config("c1cApiKey", sim.apiKeys.client1Admin, true);
  await declare(s, [
    { name: "old", provider: "c1", search: "oo-move-*" },
    { name: "old-prov", provider: "c1c", search: "oo-moveprov-*" },
    { name: "before", provider: "c1", search: "oo-rename-*" },
  ]);
  const start = await rules(sim);
  expect((await s.op("up")).ok).toBe(true);
  const deployed = await rules(sim);
  expect(deployed).toEqual(
    [...start, `${C1} oo-move-* true`, `${C1} oo-moveprov-* true`, `${C1} oo-rename-* true`].sort(),
  );
  const idOf = async (search: string) =>
    String((await sim.control.state()).rules.find((r) => r.search === search)!.id);
  const moved = await idOf("oo-move-*");
  const movedProv = await idOf("oo-moveprov-*");

  await declare(s, [
    { name: "new", provider: "c1", search: "oo-move-*", adoptExisting: true },
    // The new provider adopts; the old one's delete, in another process, must see it.
    { name: "new-prov", provider: "c1b", search: "oo-moveprov-*", adoptExisting: true },
    { name: "after", provider: "c1", search: "oo-rename-*", aliases: [urn("moves", RULE, "before")] },
  ]);
  await sim.control.resetStats();
  const up = await s.op("up");
  expect(up.ok).toBe(true);
  // new, new-prov and provider c1b created; old, old-prov and provider c1c deleted; the renamed
  // rule (with its alias), provider c1 and the stack the same.
  expect(up.summary).toEqual({ create: 3, delete: 3, same: 3 });
  for (const id of [moved, movedProv])
    expect(flat(up.stdout)).toContain(
      `HVA rule ${id} was not deleted: another resource of this stack took it over in this run (adoptExisting or import) and holds it now`,
    );
  expect(await rules(sim)).toEqual(deployed);
  expect(await writes(sim)).toBe(0);
  // The new resources hold the rules: a refresh finds each, a destroy deletes each once.
  const refresh = await s.op("refresh");
  expect(refresh.ok).toBe(true);
  expect(refresh.summary).toEqual({ same: 6 });
  expect((await s.op("destroy")).summary).toEqual({ delete: 6 });
  expect(await rules(sim)).toEqual(start);
});

test("a DirectoryUserSettings renamed without aliases: the old one's delete does not undo the new one's flags", async () => {
  const s = await objectsStack("user-rename", "native");
  const user = `du-${C1}-006`;
  const original = (await sim.control.state()).users.find((u) => u.id === user)!.needsChatOpsWelcome;
  const flag = !original;
  const declared = (name: string) => ({
    name,
    provider: "c1",
    user,
    needsChatOpsWelcome: flag,
    restoreOnDelete: true,
  });
  await declare(s, [declared("old-name")]);
  expect((await s.op("up")).ok).toBe(true);
  expect((await sim.control.state()).users.find((u) => u.id === user)!.needsChatOpsWelcome).toBe(flag);
  // Renamed, no aliases: the engine creates the new resource, then deletes the old one last.
  await declare(s, [declared("new-name")]);
  const up = await s.op("up");
  expect(up.ok).toBe(true);
  expect(up.summary).toMatchObject({ create: 1, delete: 1 });
  expect(flat(up.stdout)).toContain(
    `directory user ${user}'s flags were not restored: another resource of this stack took the user over in this run and manages it now; only this resource left the stack`,
  );
  expect((await sim.control.state()).users.find((u) => u.id === user)!.needsChatOpsWelcome).toBe(flag);
  // The new resource restores, on its own destroy, what it found when it took the user over (the old
  // resource's value: restoring the one from before the stack would have undone it mid-up).
  expect((await s.op("destroy")).ok).toBe(true);
  expect((await sim.control.state()).users.find((u) => u.id === user)!.needsChatOpsWelcome).toBe(flag);
});
