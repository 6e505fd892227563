/**
 * Adoption keeps one live object per resource, through the real engine: a stack of two client teams
 * (native providers, Automation API), rules made by hand in both, a hand-made copy of a managed rule
 * and a rule another team owns (the ignore file). `secops drift` on `pulumi stack export` reports the
 * copy as `copy` (never to import), leaves the ignored rule alone, and gives every rule to adopt a
 * name unique across the whole report (team-qualified where two teams would give one name). Its
 * adoption lines round-trip: each team's `secops hva export` line writes exactly the rules the report
 * lists under exactly its names; every `pulumi import` line, run in order, then the same rules declared
 * in the program, leave no duplicate, no copy adopted and nothing ignored under management.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { SecOpsClient } from "pulumi-secops/client";
import type { DriftReport } from "pulumi-secops/drift";
import { createSimulator, type Simulator } from "secops-sim";
import { rules, writes } from "../helpers/sim-counts";
import { engineStack, type EngineStack } from "../helpers/pulumi-stack";
import { built, run } from "../helpers/spawn";

jest.setTimeout(300_000);
built("plugin/pulumi-resource-secops.js");
const SECOPS = built("cli/secops.js");
const PROGRAM = join(__dirname, "programs", "objects.js");
const C1 = "team-client-1";
const C2 = "team-client-2";
let sim: Simulator;
let s: EngineStack;
let dir: string;

type Declared = { name: string; provider: string; search: string };
const declared: Declared[] = [
  { name: "c1-dc", provider: "c1", search: "ad-dc-*" },
  { name: "c2-dc", provider: "c2", search: "ad-dc2-*" },
];

/** Makes a rule by hand with a team's key; its id. */
async function byHand(key: string, search: string): Promise<string> {
  const c = new SecOpsClient({ apiKey: key, baseUrl: sim.url });
  try {
    return (await c.createHvaRule({ field: "name", search })).id;
  } finally {
    await c.close();
  }
}

/** Words of a command line the report printed (no quoting in these lines). */
const words = (line: string) => line.split(" ").filter(Boolean);

beforeAll(async () => {
  sim = await createSimulator({ seed: 422 });
  dir = mkdtempSync(join(tmpdir(), "secops-adoption-"));
  s = await engineStack("adoption", PROGRAM);
  await s.config("front", "native");
  await s.config("baseUrl", sim.url);
  await s.config("c1ApiKey", sim.apiKeys.client1Admin, true);
  await s.config("c2ApiKey", sim.apiKeys.client2Admin, true);
  await s.config("resources", JSON.stringify(declared));
});
afterAll(async () => {
  s?.remove();
  rmSync(dir, { recursive: true, force: true });
  await sim?.close();
});

test("copies, ignored rules and two teams' same names: drift reports them, and its adoption lines round-trip", async () => {
  expect((await s.op("up")).ok).toBe(true);
  const k1 = sim.apiKeys.client1Admin;
  const k2 = sim.apiKeys.client2Admin;
  const copy = await byHand(k1, "ad-dc-*"); // a hand-made copy of the managed c1-dc rule
  const scanner = await byHand(k1, "ad-scanner-01"); // the scanner team's
  const edr1 = await byHand(k1, "edr-console-*");
  const edr2 = await byHand(k2, "edr-console-*");
  // Two identical rules made by hand: one is offered for adoption, the other is its copy.
  const twins = [await byHand(k1, "ad-twin-*"), await byHand(k1, "ad-twin-*")].sort();
  const ignoreFile = join(dir, "ignore.txt");
  writeFileSync(ignoreFile, "ad-scanner-* # the vulnerability scanner team owns it\n");
  const stackFile = join(dir, "stack.json");
  expect((await s.pulumi(["stack", "export", "--file", stackFile])).code).toBe(0);

  const env = { C1_KEY: k1, C2_KEY: k2, SECOPS_BASE_URL: sim.url };
  const args = ["--state", stackFile, "--key-env", "C1_KEY", "--key-env", "C2_KEY", "--ignore", ignoreFile];
  const drift = await run(SECOPS, ["drift", ...args, "--format", "json"], env);
  expect(drift.code).toBe(3);
  const report = JSON.parse(drift.stdout) as DriftReport;
  const team = (id: string) => report.teams.find((t) => t.teamId === id)!;
  const urnOf = (name: string) => `urn:pulumi:dev::adoption::secops:index:HvaAutomationRule::${name}`;
  expect(team(C1).copy).toEqual([
    { id: copy, field: "name", search: "ad-dc-*", enabled: true, of: urnOf("c1-dc") },
    { id: twins[1], field: "name", search: "ad-twin-*", enabled: true, of: twins[0] },
  ]);
  expect(
    team(C1)
      .unmanaged.filter((u) => u.search === "ad-twin-*")
      .map((u) => u.id),
  ).toEqual([twins[0]]);
  expect(team(C1).ignored).toEqual([{ id: scanner, reason: "the vulnerability scanner team owns it" }]);
  const unmanaged = (id: string) => team(id).unmanaged.filter((u) => u.search === "edr-console-*");
  // Both teams would name it edr-console: each is qualified by its team, and its export line says so.
  expect(unmanaged(C1).map((u) => [u.id, words(u.import)[3]])).toEqual([[edr1, `${C1}-edr-console`]]);
  expect(unmanaged(C2).map((u) => [u.id, words(u.import)[3]])).toEqual([[edr2, `${C2}-edr-console`]]);
  const all = report.teams.flatMap((t) => t.unmanaged.map((u) => words(u.import)[3]));
  expect(new Set(all).size).toBe(all.length);
  expect(report.teams.flatMap((t) => t.unmanaged.map((u) => u.id))).not.toContain(copy);
  expect(team(C1).adopt).toBe(
    `secops hva export --state ${stackFile} --api-key-env C1_KEY --ignore ${ignoreFile} --name-prefix ${C1}- --format typescript --native --out adopt-${C1}.ts`,
  );
  const table = await run(SECOPS, ["drift", ...args], env);
  expect(table.stdout).toContain(
    `not managed, identical to the rule c1-dc manages (in stack adoption/dev): never import it (two resources would hold one rule); decide by hand which of the two the team keeps, or keep both on purpose with a line "${copy} # why" in the ignore file`,
  );
  expect(table.stdout).toContain(
    "(a rule imported with pulumi import must also be declared in the program (pulumi import prints the code): the next up deletes what the program does not declare)",
  );

  // Each team's export line writes exactly the rules the report lists, under its names.
  for (const id of [C1, C2]) {
    const [, ...line] = words(team(id).adopt!);
    const out = line.indexOf("--out");
    line[out + 1] = join(dir, line[out + 1]);
    const exported = await run(SECOPS, line, env);
    expect(exported.code).toBe(0);
    const ts = readFileSync(line[out + 1], "utf8");
    const names = [
      ...ts.matchAll(/new secops\.HvaAutomationRule\("([^"]+)", \{[^}]*\}, \{ import: "([^"]+)"/g),
    ];
    expect(names.map((m) => [m[1], m[2]]).sort()).toEqual(
      team(id)
        .unmanaged.map((u) => [words(u.import)[3], u.id])
        .sort(),
    );
    expect(ts).not.toContain(copy);
    expect(ts).not.toContain(scanner);
    expect(ts).not.toContain(twins[1]);
  }

  // Every import line, in order (no code generation: the program declares them next), then declared.
  // `pulumi import` loads the project's language host, and Pulumi's Node.js host cannot be built here
  // (docs/engine.md): the project names Pulumi YAML's for the imports, which run no program.
  const project = join(s.dir, "Pulumi.yaml");
  const nodeProject = readFileSync(project, "utf8");
  writeFileSync(
    project,
    nodeProject.replace(/runtime:.*\n(\s+options:[\s\S]*?\n(?=\S))?/, "runtime: yaml\n"),
  );
  const before = await rules(sim);
  await sim.control.resetStats();
  const adopted: Declared[] = [];
  for (const t of [team(C1), team(C2)])
    for (const u of t.unmanaged) {
      const [, ...line] = words(u.import);
      const imported = await s.pulumi([...line, "--yes", "--generate-code=false"]);
      expect({ code: imported.code, stderr: imported.stderr }).toEqual({ code: 0, stderr: "" });
      adopted.push({ name: line[2], provider: t.teamId === C1 ? "c1" : "c2", search: u.search });
    }
  writeFileSync(project, nodeProject);
  await s.config("resources", JSON.stringify([...declared, ...adopted]));
  const preview = await s.op("preview");
  expect(preview.ok).toBe(true);
  expect(preview.changeSummary).toEqual({ same: declared.length + adopted.length + 3 });
  expect(await writes(sim)).toBe(0);
  expect(await rules(sim)).toEqual(before);

  // Nothing left to adopt; the copy and the ignored rule stay outside the stack.
  expect((await s.pulumi(["stack", "export", "--file", stackFile])).code).toBe(0);
  const again = JSON.parse(
    (await run(SECOPS, ["drift", ...args, "--format", "json"], env)).stdout,
  ) as DriftReport;
  expect(again.teams.map((t) => [t.teamId, t.unmanaged.length, t.duplicate.length])).toEqual([
    [C1, 0, 0],
    [C2, 0, 0],
  ]);
  expect(team(C1).copy.map((c) => c.id)).toEqual(again.teams[0].copy.map((c) => c.id));
  expect(again.teams[0].ignored.map((i) => i.id)).toEqual([scanner]);
});
