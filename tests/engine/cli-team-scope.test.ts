/**
 * One live rule per team, and no claim or write without proof (issues 53 and 54), through the real
 * engine (CLI built from its Go modules, Automation API, the native plugin, the simulator): two
 * providers of one team, an adoption under a second provider, a rule already in the team, a rerun on
 * a fresh runner (an empty journal) after the engine died with a PUT landed, the refusal landing on
 * the newcomer, a key swapped while GET /v1/auth/me fails, and a pending create whose rule is made
 * by hand later. Every team's rules are counted after each step.
 */
import { mkdtempSync, readFileSync, readdirSync, readlinkSync, realpathSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createSimulator, type Simulator } from "secops-sim";
import {
  duplicateRuleReason,
  existsReason,
  heldByThisReason,
  teamDuplicateReason,
} from "pulumi-secops/resources/hva-automation-rule";
import { rules, writes } from "../helpers/sim-counts";
import { engineStack, type EngineStack, type OpResult } from "../helpers/pulumi-stack";
import { built } from "../helpers/spawn";

jest.setTimeout(300_000);
built("plugin/pulumi-resource-secops.js");
const PROGRAM = join(__dirname, "programs", "objects.js");
const C1 = "team-client-1";
const RULE = "secops:index:HvaAutomationRule";
let sim: Simulator;
const stacks: EngineStack[] = [];
const journals: string[] = [];

type Declared = { name: string; provider?: string; search?: string; adoptExisting?: boolean };

const said = (r: OpResult) => `${r.message ?? ""}\n${r.stdout}\n${r.stderr}`.replace(/\s+/g, " ");
const flat = (text: string) => text.replace(/\s+/g, " ");
const urn = (project: string, name: string) => `urn:pulumi:dev::${project}::${RULE}::${name}`;
const provider = (name: string) => `the secops provider ${JSON.stringify(name)}`;
/** How the engine prints a Check failure of `name`'s search. */
const refused = (name: string, search: string, reason: string) =>
  flat(`resource '${name}': property search value {${search}} has a problem: ${reason}`);

/** A stack of objects.js with providers c1 and c1b, both with keys of team-client-1, and its own journal. */
async function teamStack(project: string, journal = mkdtempSync(join(tmpdir(), "secops-journal-"))) {
  journals.push(journal);
  const s = await engineStack(project, PROGRAM, { SECOPS_INTENT_DIR: journal });
  stacks.push(s);
  await s.config("front", "native");
  await s.config("baseUrl", sim.url);
  await s.config("c1ApiKey", sim.apiKeys.client1Admin, true);
  await s.config("c1bApiKey", sim.apiKeys.client1Admin, true);
  await s.config("c2ApiKey", sim.apiKeys.client2Admin, true);
  return { s, journal };
}
const declare = (s: EngineStack, resources: Declared[]) => s.config("resources", JSON.stringify(resources));
const ruleIds = async (search: string) =>
  (await sim.control.state()).rules.filter((r) => r.search === search).map((r) => String(r.id));

beforeAll(async () => {
  sim = await createSimulator({ seed: 530 });
});
afterAll(async () => {
  for (const s of stacks) s.remove();
  for (const j of journals) rmSync(j, { recursive: true, force: true });
  await sim?.close();
});

test("53.1 and 53.6: the same rule under two providers of one team is refused at preview and up, on the newcomer, naming both resources and providers; nothing is written", async () => {
  const { s } = await teamStack("two-providers");
  await declare(s, [{ name: "alpha-dc", provider: "c1", search: "ts-two-*" }]);
  expect((await s.op("up")).ok).toBe(true);
  const deployed = await rules(sim);
  // The newcomer is registered first, so the engine checks it before the resource it clashes with.
  await declare(s, [
    { name: "alpha-dc-again", provider: "c1b", search: "ts-two-*" },
    { name: "alpha-dc", provider: "c1", search: "ts-two-*" },
  ]);
  await sim.control.resetStats();
  const [id] = await ruleIds("ts-two-*");
  for (const op of ["preview", "up"] as const) {
    const r = await s.op(op);
    expect(r.ok).toBe(false);
    // Whichever the engine checks first, the refusal lands on the newcomer: checked second, it
    // names the resource holding the rule; checked first, it sees the rule in the team.
    const byOther = teamDuplicateReason(
      { urn: urn("two-providers", "alpha-dc"), provider: provider("c1") },
      provider("c1b"),
      C1,
      "name",
      "ts-two-*",
    );
    const inTeam = existsReason(C1, "name", "ts-two-*", [id], false);
    expect(
      [byOther, inTeam].some((reason) => said(r).includes(refused("alpha-dc-again", "ts-two-*", reason))),
    ).toBe(true);
    expect(said(r)).not.toContain("resource 'alpha-dc': property search");
    expect(said(r)).not.toMatch(/rpc error|code = /);
  }
  expect(await writes(sim)).toBe(0);
  expect(await rules(sim)).toEqual(deployed);

  // Two new resources of one rule under the two providers: the one checked second is refused.
  await declare(s, [
    { name: "alpha-dc", provider: "c1", search: "ts-two-*" },
    { name: "beta-dc", provider: "c1", search: "ts-new-*" },
    { name: "beta-dc-again", provider: "c1b", search: "ts-new-*" },
  ]);
  const preview = await s.op("preview");
  expect(preview.ok).toBe(false);
  const reason = (name: string, by: string, mine: string) =>
    refused(
      name,
      "ts-new-*",
      teamDuplicateReason(
        { urn: urn("two-providers", by), provider: provider(mine === "c1" ? "c1b" : "c1") },
        provider(mine),
        C1,
        "name",
        "ts-new-*",
      ),
    );
  // Both are new: the one the engine checks second is refused, naming the other.
  expect(
    said(preview).includes(reason("beta-dc-again", "beta-dc", "c1b")) ||
      said(preview).includes(reason("beta-dc", "beta-dc-again", "c1")),
  ).toBe(true);
  expect(await writes(sim)).toBe(0);
  expect(await ruleIds("ts-new-*")).toEqual([]);
  await declare(s, [{ name: "alpha-dc", provider: "c1", search: "ts-two-*" }]);
  expect((await s.op("destroy")).ok).toBe(true);
  expect(await ruleIds("ts-two-*")).toEqual([]);
});

test("53.6: under one provider, the newcomer registered before the resource it clashes with is the one refused", async () => {
  const { s } = await teamStack("newcomer-first");
  await declare(s, [{ name: "alpha-dc", provider: "c1", search: "ts-first-*" }]);
  expect((await s.op("up")).ok).toBe(true);
  const [id] = await ruleIds("ts-first-*");
  await declare(s, [
    { name: "alpha-dc-again", provider: "c1", search: "ts-first-*" },
    { name: "alpha-dc", provider: "c1", search: "ts-first-*" },
  ]);
  await sim.control.resetStats();
  const preview = await s.op("preview");
  expect(preview.ok).toBe(false);
  const inTeam = existsReason(C1, "name", "ts-first-*", [id], false);
  const byOther = duplicateRuleReason(urn("newcomer-first", "alpha-dc"), "name", "ts-first-*");
  expect(
    [inTeam, byOther].some((r) => said(preview).includes(refused("alpha-dc-again", "ts-first-*", r))),
  ).toBe(true);
  expect(said(preview)).not.toContain("resource 'alpha-dc': property search");
  expect(await writes(sim)).toBe(0);
  expect(await ruleIds("ts-first-*")).toEqual([id]);
  await declare(s, [{ name: "alpha-dc", provider: "c1", search: "ts-first-*" }]);
  expect((await s.op("destroy")).ok).toBe(true);
  expect(await ruleIds("ts-first-*")).toEqual([]);
});

test("53.2: adoptExisting under a second provider of the team for a rule the first holds is refused at preview; the rule stays with its holder", async () => {
  const { s } = await teamStack("adopt-second");
  await declare(s, [{ name: "holder", provider: "c1", search: "ts-adopt-*" }]);
  expect((await s.op("up")).ok).toBe(true);
  const deployed = await rules(sim);
  await declare(s, [
    { name: "holder", provider: "c1", search: "ts-adopt-*" },
    { name: "taker", provider: "c1b", search: "ts-adopt-*", adoptExisting: true },
  ]);
  await sim.control.resetStats();
  // The engine checks the two in the order their providers are ready: the one checked second is
  // refused, the newcomer named either way (as the one to remove, when the holder is checked second).
  const takerRefused = refused(
    "taker",
    "ts-adopt-*",
    teamDuplicateReason(
      { urn: urn("adopt-second", "holder"), provider: provider("c1") },
      provider("c1b"),
      C1,
      "name",
      "ts-adopt-*",
    ),
  );
  const holderRefused = refused(
    "holder",
    "ts-adopt-*",
    heldByThisReason(
      { urn: urn("adopt-second", "taker"), provider: provider("c1b") },
      C1,
      "name",
      "ts-adopt-*",
    ),
  );
  const preview = await s.op("preview");
  expect(preview.ok).toBe(false);
  expect(said(preview).includes(takerRefused) || said(preview).includes(holderRefused)).toBe(true);
  expect(await writes(sim)).toBe(0);
  expect(await rules(sim)).toEqual(deployed);
  // An up without its preview fails the same way; when the holder was checked after the adoption
  // ran (the engine creates while it still checks), the rule is in both resources' state.
  const up = await s.op("up");
  expect(up.ok).toBe(false);
  expect(said(up).includes(takerRefused) || said(up).includes(holderRefused)).toBe(true);
  expect(await rules(sim)).toEqual(deployed);
  // The obvious fix (remove the adopting line) keeps the rule with its holder, in every case.
  await declare(s, [{ name: "holder", provider: "c1", search: "ts-adopt-*" }]);
  const fixed = await s.op("up");
  expect(fixed.ok).toBe(true);
  expect(await rules(sim)).toEqual(deployed);
  expect((await s.op("destroy")).ok).toBe(true);
  expect(await ruleIds("ts-adopt-*")).toEqual([]);
});

test("53.3: a rule already in the team (made by hand) is never created twice: preview names it and both ways to take it; adoptExisting takes it", async () => {
  const { s } = await teamStack("already-there");
  const hand = String(
    (await sim.control.addRule({ teamId: C1, searchField: "name", search: "ts-hand-*" })).id,
  );
  await declare(s, [{ name: "dc", provider: "c1", search: "ts-hand-*" }]);
  await sim.control.resetStats();
  const reason = existsReason(C1, "name", "ts-hand-*", [hand], false);
  expect(reason).toContain("set adoptExisting: true on this resource, or import it");
  for (const op of ["preview", "up"] as const) {
    const r = await s.op(op);
    expect(r.ok).toBe(false);
    expect(said(r)).toContain(refused("dc", "ts-hand-*", reason));
  }
  expect(await writes(sim)).toBe(0);
  expect(await ruleIds("ts-hand-*")).toEqual([hand]);
  await declare(s, [{ name: "dc", provider: "c1", search: "ts-hand-*", adoptExisting: true }]);
  expect((await s.op("up")).ok).toBe(true);
  expect(await ruleIds("ts-hand-*")).toEqual([hand]);
  expect((await s.op("destroy")).ok).toBe(true);
  expect(await ruleIds("ts-hand-*")).toEqual([]);
});

/** Pids of the `pulumi` CLI processes started in `dir`. */
function clis(dir: string): number[] {
  const cwd = realpathSync(dir);
  return readdirSync("/proc")
    .filter((n) => /^\d+$/.test(n))
    .filter((n) => {
      try {
        const argv0 = readFileSync(`/proc/${n}/cmdline`, "utf8").split("\0")[0];
        return /(^|\/)pulumi$/.test(argv0) && readlinkSync(`/proc/${n}/cwd`) === cwd;
      } catch {
        return false;
      }
    })
    .map(Number);
}

test("53.4: the engine killed after the PUT landed, rerun on a fresh runner (empty journal): refused naming the rule, then adopted: one rule", async () => {
  const { s, journal } = await teamStack("fresh-runner");
  await declare(s, [{ name: "dc", provider: "c1", search: "ts-crash-*" }]);
  // The PUT commits at once and answers 5 s later: the engine is killed in between.
  await sim.control.setFaults([
    { kind: "commit-stall", method: "PUT", path: "/endpoint/hva/automation", latencyMs: 5_000 },
  ]);
  const up = s.op("up");
  let killed = 0;
  for (let t = 0; t < 600 && killed === 0; t++) {
    if ((await ruleIds("ts-crash-*")).length > 0)
      for (const pid of clis(s.dir)) {
        process.kill(pid, "SIGKILL");
        killed++;
      }
    else await new Promise((r) => setTimeout(r, 50));
  }
  expect(killed).toBeGreaterThan(0);
  expect((await up).ok).toBe(false);
  await sim.control.clearFaults();
  const [id] = await ruleIds("ts-crash-*");
  expect(await ruleIds("ts-crash-*")).toEqual([id]);
  // A fresh runner: no journal. The killed CLI left its lock: `pulumi cancel` removes it.
  rmSync(journal, { recursive: true, force: true });
  await s.pulumi(["cancel", "--yes"]);
  await sim.control.resetStats();
  const rerun = await s.op("up");
  expect(rerun.ok).toBe(false);
  expect(said(rerun)).toContain(
    refused("dc", "ts-crash-*", existsReason(C1, "name", "ts-crash-*", [id], false)),
  );
  expect(await writes(sim)).toBe(0);
  expect(await ruleIds("ts-crash-*")).toEqual([id]);
  // The message's way out: adoptExisting takes the rule the dead run made.
  await declare(s, [{ name: "dc", provider: "c1", search: "ts-crash-*", adoptExisting: true }]);
  expect((await s.op("up")).ok).toBe(true);
  expect(await ruleIds("ts-crash-*")).toEqual([id]);
  expect((await s.op("destroy")).ok).toBe(true);
  expect(await ruleIds("ts-crash-*")).toEqual([]);
});

test("54.1: a key of another team swapped in while GET /v1/auth/me answers 503 writes nothing in either team", async () => {
  const { s } = await teamStack("key-swap");
  await declare(s, [{ name: "kept", provider: "c1", search: "ts-swap-1-*" }]);
  expect((await s.op("up")).ok).toBe(true);
  const deployed = await rules(sim);
  // Provider c1 now gets team-client-2's key, and a new rule is declared under it.
  await s.config("c1ApiKey", sim.apiKeys.client2Admin, true);
  await declare(s, [
    { name: "kept", provider: "c1", search: "ts-swap-1-*" },
    { name: "new", provider: "c1", search: "ts-swap-2-*" },
  ]);
  await sim.control.setFaults([{ kind: "500", method: "GET", path: "/v1/auth/me", times: 4 }]);
  await sim.control.resetStats();
  const up = await s.op("up");
  await sim.control.clearFaults();
  expect(up.ok).toBe(false);
  // The rule the state holds refuses the key at its Diff; the new rule's create would compare the two
  // keys' teams first (see writeTeam): either way, nothing is sent.
  expect(said(up)).toMatch(
    /(belongs to team team-client-1, but this provider's API key is for team team-client-2; nothing was sent|team-client-1's resources, and its new apiKey is a key of team team-client-2|writes only to a team it has looked up|could not be looked up to compare)/,
  );
  expect(await writes(sim)).toBe(0);
  expect(await rules(sim)).toEqual(deployed);
});

test("54.2: a pending create whose rule is then made by hand: the next up names it and deletes nothing; adoptExisting takes it", async () => {
  const { s } = await teamStack("late-rule");
  await declare(s, [{ name: "dc", provider: "c1", search: "ts-late-*" }]);
  // The PUT's connection is reset without landing, and every list after it fails: a pending create.
  await sim.control.setFaults([
    { kind: "reset", method: "PUT", path: "/endpoint/hva/automation", times: 1 },
    { kind: "500", method: "GET", path: "/endpoint/hva/automation", skip: 2, times: 40 },
  ]);
  const up = await s.op("up");
  await sim.control.clearFaults();
  expect(up.ok).toBe(false);
  expect(said(up)).toContain("It is recorded as a pending create");
  expect(await ruleIds("ts-late-*")).toEqual([]);
  const hand = String(
    (await sim.control.addRule({ teamId: C1, searchField: "name", search: "ts-late-*" })).id,
  );
  await sim.control.resetStats();
  const next = await s.op("up");
  expect(next.ok).toBe(false);
  expect(said(next)).toContain(
    `rule ${hand} with that field and search appeared after the create's own request`,
  );
  expect(await writes(sim)).toBe(0);
  expect(await ruleIds("ts-late-*")).toEqual([hand]);
  await declare(s, [{ name: "dc", provider: "c1", search: "ts-late-*", adoptExisting: true }]);
  const adopted = await s.op("up");
  expect(adopted.ok).toBe(true);
  expect(said(adopted)).toContain("is a pending create from an interrupted run");
  expect(await ruleIds("ts-late-*")).toEqual([hand]);
  expect((await s.op("destroy")).ok).toBe(true);
  expect(await ruleIds("ts-late-*")).toEqual([]);
});
