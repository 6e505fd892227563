/**
 * `secops hva export`: the team's rules as a `pulumi import --file` JSON or a TypeScript program, with
 * stable unique names; the native program it writes adopts every rule through the runner, writing nothing.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { SecOpsClient } from "pulumi-secops/client";
import { LifecycleRunner, linkPackage } from "../rig";
import { createSimulator, type Simulator } from "secops-sim";
import { ruleName } from "../../provider/cli/hva-export";
import { ROOT, built, run } from "../helpers/spawn";
import { exported, toDeployment } from "./deployment";

const CLI = built("cli/secops.js");
let sim: Simulator;
let env: Record<string, string>;
let dir: string;
let ids: string[];
beforeAll(async () => {
  sim = await createSimulator({ seed: 45 });
  env = { SECOPS_BASE_URL: sim.url, SECOPS_API_KEY: sim.apiKeys.client1Admin };
  dir = mkdtempSync(join(tmpdir(), "secops-hva-export-"));
  // The exported program imports pulumi-secops/native: installed there, as a user's program has it.
  linkPackage(dir, ROOT);
  const client = new SecOpsClient({ apiKey: sim.apiKeys.client1Admin, baseUrl: sim.url });
  ids = [];
  for (const search of ["dc-*", "DC *", "db-??", "*", "10.0.*"])
    ids.push((await client.createHvaRule({ field: "name", search })).id);
  await client.setHvaRuleEnabled(ids[2], false);
  await client.close();
});
afterAll(async () => {
  await sim.close();
  rmSync(dir, { recursive: true, force: true });
});

test("names come from the search text, unique and stable", () => {
  expect(ruleName({ searchField: "name", search: "dc-*" })).toBe("dc");
  expect(ruleName({ searchField: "hostname", search: "Web 01" })).toBe("hostname-web-01");
  expect(ruleName({ searchField: "name", search: "*" })).toBe("rule");
  expect(ruleName({ searchField: "name", search: "10.0.*" })).toBe("rule-10-0");
});

test("--format import writes a pulumi import file of the team's rules", async () => {
  const r = await run(CLI, ["hva", "export"], env);
  expect(r.stderr).toBe("");
  expect(r.code).toBe(0);
  const file = JSON.parse(r.stdout);
  const type = "secops:index:HvaAutomationRule";
  expect(file).toEqual({
    resources: [
      { type, name: "dc", id: ids[0] },
      { type, name: "dc-2", id: ids[1] },
      { type, name: "db", id: ids[2] },
      { type, name: "rule", id: ids[3] },
      { type, name: "rule-10-0", id: ids[4] },
    ],
  });
  // Stable: the same rules give the same file.
  expect((await run(CLI, ["hva", "export", "--format", "import"], env)).stdout).toBe(r.stdout);
  const bad = await run(CLI, ["hva", "export", "--format", "yaml"], env);
  expect(bad.code).toBe(2);
  expect(bad.stderr).toContain("argument 'yaml' is invalid. Allowed choices are import, typescript.");
});

test("--format typescript writes a dynamic program with adoptExisting", async () => {
  const r = await run(CLI, ["hva", "export", "--format", "typescript"], env);
  expect(r.code).toBe(0);
  expect(r.stdout).toContain('import * as secops from "pulumi-secops";');
  expect(r.stdout).toContain(
    'new secops.HvaAutomationRule("db", { field: "name", search: "db-??", enabled: false, adoptExisting: true });',
  );
});

test("--native writes a program whose first up imports every rule and writes nothing", async () => {
  const out = join(dir, "index.ts");
  const r = await run(CLI, ["hva", "export", "--format", "typescript", "--native", "--out", out], env);
  expect(r).toMatchObject({ code: 0, stderr: `wrote 5 rule(s) to ${out}\n` });
  const source = readFileSync(out, "utf8");
  expect(source).toContain('import * as secops from "pulumi-secops/native";');
  expect(source).toContain(
    `new secops.HvaAutomationRule("dc-2", { field: "name", search: "DC *", enabled: true }, { import: "${ids[1]}" });`,
  );
  writeFileSync(join(dir, "Pulumi.yaml"), "name: adopted\nruntime: nodejs\n");
  const runner = new LifecycleRunner({
    program: out,
    programDir: dir,
    statePath: join(dir, "state.json"),
    config: { "secops:apiKey": sim.apiKeys.client1Admin, "secops:baseUrl": sim.url },
  });
  try {
    await sim.control.resetStats();
    const up = await runner.up();
    expect(up.map((s) => [s.name, s.op, s.ok])).toEqual([
      ["db", "import", true],
      ["dc", "import", true],
      ["dc-2", "import", true],
      ["rule", "import", true],
      ["rule-10-0", "import", true],
    ]);
    const writes = Object.keys((await sim.control.stats()).requests).filter((k) => !k.startsWith("GET"));
    expect(writes).toEqual([]);
    expect(
      runner
        .state()
        .resources.map((r) => r.id)
        .sort(),
    ).toEqual([...ids].sort());
  } finally {
    await runner.close();
  }
});

test("--out keeps an existing file unless --force, and a missing folder is a usage error (exit 2)", async () => {
  const out = join(dir, "existing.ts");
  writeFileSync(out, "// the user's own program\n");
  const args = ["hva", "export", "--format", "typescript", "--native", "--out", out];
  expect(await run(CLI, args, env)).toMatchObject({
    code: 2,
    stdout: "",
    stderr: `secops: --out ${out}: the file exists; pass --force to replace it\n`,
  });
  expect(readFileSync(out, "utf8")).toBe("// the user's own program\n");
  expect(await run(CLI, [...args, "--force"], env)).toMatchObject({
    code: 0,
    stderr: `wrote 5 rule(s) to ${out}\n`,
  });
  expect(readFileSync(out, "utf8")).toContain('import * as secops from "pulumi-secops/native";');
  const nowhere = join(dir, "no", "such", "dir", "x.ts");
  expect(await run(CLI, ["hva", "export", "--out", nowhere], env)).toMatchObject({
    code: 2,
    stderr: `secops: --out ${nowhere}: no such folder ${join(dir, "no", "such", "dir")}\n`,
  });
});

test("issue 32: --state of a stack on the default provider exports only the rules no resource holds", async () => {
  // The previous test's up adopted the team's 5 rules into state.json; one more is made by hand, and
  // a hand-made copy of the managed dc-* rule (a copy is never exported: issue 42).
  const handMade = await sim.control.addRule({
    teamId: "team-client-1",
    searchField: "name",
    search: "dc-?",
  });
  const copy = await sim.control.addRule({ teamId: "team-client-1", searchField: "name", search: "dc-*" });
  const state = exported(join(dir, "state.json"));
  const r = await run(CLI, ["hva", "export", "--state", state], env);
  expect({ code: r.code, stderr: r.stderr }).toEqual({
    code: 0,
    stderr: `secops hva export: left out 1 copy(ies) of managed rules (${copy.id}): delete them by hand or ignore them (see secops drift)\n`,
  });
  // "dc" is a resource of the state already: the new rule is named apart from it.
  expect(JSON.parse(r.stdout)).toEqual({
    resources: [{ type: "secops:index:HvaAutomationRule", name: "dc-3", id: handMade.id }],
  });
  // With the drift report's ignore file and a name prefix, as its adoption line gives them.
  const ignore = join(dir, "ignore.txt");
  writeFileSync(ignore, `${copy.id} # kept on purpose\n`);
  const prefixed = await run(
    CLI,
    ["hva", "export", "--state", state, "--ignore", ignore, "--name-prefix", "team-client-1-"],
    env,
  );
  expect({ code: prefixed.code, stderr: prefixed.stderr }).toEqual({
    code: 0,
    stderr: `secops hva export: left out 1 ignored rule(s) (${copy.id})\n`,
  });
  expect(JSON.parse(prefixed.stdout).resources).toEqual([
    { type: "secops:index:HvaAutomationRule", name: "team-client-1-dc", id: handMade.id },
  ]);
  expect(await run(CLI, ["hva", "export", "--name-prefix", "a b"], env)).toMatchObject({
    code: 2,
    stderr:
      'secops: --name-prefix "a b": letters, digits, dots, dashes and underscores only, starting with a letter or digit\n',
  });
});

describe("issue 32: --state of a stack with a provider per team", () => {
  const HVA = "secops:index:HvaAutomationRule";
  let sim2: Simulator;
  let work: string;
  let state: string;
  let stack: string;
  const made: Record<string, string> = {};
  const providerUrn = (team: string) => `urn:pulumi:dev::adopt::pulumi:providers:secops::${team}`;
  const keyEnv = (key: string) => ({ SECOPS_BASE_URL: sim2.url, SECOPS_API_KEY: key });
  const rulesPerTeam = async () => {
    const counts: Record<string, number> = {};
    for (const r of (await sim2.control.state()).rules)
      counts[String(r.teamId)] = (counts[String(r.teamId)] ?? 0) + 1;
    return counts;
  };
  /** The stack's program: one provider per client team and a rule each; `adopt` adds adopt.ts's rules. */
  const program = (adopt: boolean) => `import * as secops from "pulumi-secops/native";
${adopt ? 'import { adoptRules } from "./adopt";\n' : ""}
const baseUrl = ${JSON.stringify(sim2.url)};
const c1 = new secops.Provider("c1", { apiKey: ${JSON.stringify(sim2.apiKeys.client1Admin)}, baseUrl });
const c2 = new secops.Provider("c2", { apiKey: ${JSON.stringify(sim2.apiKeys.client2Admin)}, baseUrl });
new secops.HvaAutomationRule("c1-dc", { field: "name", search: "dc-*" }, { provider: c1 });
new secops.HvaAutomationRule("c2-dc", { field: "name", search: "dc-*" }, { provider: c2 });
${adopt ? "adoptRules(c1);\n" : ""}`;
  const runnerOf = (file: string) =>
    new LifecycleRunner({ program: join(work, file), programDir: work, statePath: state, project: "adopt" });

  beforeAll(async () => {
    sim2 = await createSimulator({ seed: 46 });
    work = mkdtempSync(join(tmpdir(), "secops-hva-export-state-"));
    linkPackage(work, ROOT);
    state = join(work, "state.json");
    writeFileSync(join(work, "stack.ts"), program(false));
    const runner = runnerOf("stack.ts");
    try {
      expect((await runner.up()).map((s) => [s.name, s.op, s.ok])).toEqual([
        ["c1-dc", "create", true],
        ["c2-dc", "create", true],
      ]);
    } finally {
      await runner.close();
    }
    // Made by hand: in team 1 one whose name would be a resource's of the stack, and a disabled one.
    for (const [name, teamId, search, enabled] of [
      ["c1-named", "team-client-1", "c1-dc", true],
      ["c1-jump", "team-client-1", "jump-*", false],
      ["c2-web", "team-client-2", "web-*", true],
    ] as const)
      made[name] = (await sim2.control.addRule({ teamId, searchField: "name", search, enabled })).id;
    stack = join(work, "stack.json");
    writeFileSync(stack, JSON.stringify(toDeployment(state)));
  });
  afterAll(async () => {
    await sim2.close();
    rmSync(work, { recursive: true, force: true });
  });

  test("the import file names each team's provider in its nameTable, from a stack export", async () => {
    const one = await run(CLI, ["hva", "export", "--state", stack], keyEnv(sim2.apiKeys.client1Admin));
    expect({ code: one.code, stderr: one.stderr }).toEqual({ code: 0, stderr: "" });
    expect(JSON.parse(one.stdout)).toEqual({
      nameTable: { c1: providerUrn("c1") },
      resources: [
        { type: HVA, name: "c1-dc-2", id: made["c1-named"], provider: "c1" },
        { type: HVA, name: "jump", id: made["c1-jump"], provider: "c1" },
      ],
    });
    const two = await run(CLI, ["hva", "export", "--state", stack], keyEnv(sim2.apiKeys.client2Admin));
    expect(JSON.parse(two.stdout)).toEqual({
      nameTable: { c2: providerUrn("c2") },
      resources: [{ type: HVA, name: "web", id: made["c2-web"], provider: "c2" }],
    });
  });

  test("the native program adopts through the team's provider: the up imports each rule once and writes nothing", async () => {
    const out = join(work, "adopt.ts");
    const args = ["hva", "export", "--state", stack, "--format", "typescript", "--native", "--out", out];
    const r = await run(CLI, args, keyEnv(sim2.apiKeys.client1Admin));
    expect(r).toMatchObject({ code: 0, stderr: `wrote 2 rule(s) to ${out}\n` });
    expect(readFileSync(out, "utf8")).toContain(
      [
        "export function adoptRules(provider: secops.Provider): void {",
        `  new secops.HvaAutomationRule("c1-dc-2", { field: "name", search: "c1-dc", enabled: true }, { import: "${made["c1-named"]}", provider });`,
        `  new secops.HvaAutomationRule("jump", { field: "name", search: "jump-*", enabled: false }, { import: "${made["c1-jump"]}", provider });`,
        "}",
      ].join("\n"),
    );
    writeFileSync(join(work, "index.ts"), program(true));
    const before = await rulesPerTeam();
    await sim2.control.resetStats();
    const runner = runnerOf("index.ts");
    try {
      expect((await runner.up()).map((s) => [s.name, s.op, s.ok])).toEqual([
        ["c1-dc", "same", true],
        ["c1-dc-2", "import", true],
        ["c2-dc", "same", true],
        ["jump", "import", true],
      ]);
    } finally {
      await runner.close();
    }
    const writes = Object.keys((await sim2.control.stats()).requests).filter((k) => !k.startsWith("GET"));
    expect(writes).toEqual([]);
    expect(await rulesPerTeam()).toEqual(before);
    // Each rule is held once, by a resource of its team's provider; nothing of team 1 is left to adopt.
    const held = runnerOf("index.ts")
      .state()
      .resources.map((x) => [x.name, x.id, x.providerUrn]);
    expect(held).toEqual([
      ["c1-dc", expect.any(String), providerUrn("c1")],
      ["c1-dc-2", made["c1-named"], providerUrn("c1")],
      ["c2-dc", expect.any(String), providerUrn("c2")],
      ["jump", made["c1-jump"], providerUrn("c1")],
    ]);
    expect(new Set(held.map(([, id]) => id)).size).toBe(4);
    const again = await run(
      CLI,
      ["hva", "export", "--state", exported(state)],
      keyEnv(sim2.apiKeys.client1Admin),
    );
    expect(JSON.parse(again.stdout)).toEqual({ nameTable: { c1: providerUrn("c1") }, resources: [] });
  });

  test("refused with exit 2, nothing written: a dynamic program, a key of a team without a provider, no state file", async () => {
    const before = await rulesPerTeam();
    const missing = join(work, "missing.json");
    const cases: Array<[string[], string, string]> = [
      [
        ["--state", stack, "--format", "typescript"],
        sim2.apiKeys.client1Admin,
        `secops: --state ${stack}: the stack manages its rules through explicit native providers, which a dynamic program cannot use: add --native (or --format import)\n`,
      ],
      [
        ["--state", stack],
        sim2.apiKeys.admin,
        `secops: --state ${stack}: the stack manages its rules through explicit providers, and none of them holds a resource of team team-acme (this key's team): declare a provider for it first, so that the rules are adopted with that team's key\n`,
      ],
      [["--state", missing], sim2.apiKeys.client1Admin, `secops: --state ${missing}: no such file\n`],
    ];
    for (const [args, key, stderr] of cases)
      expect(await run(CLI, ["hva", "export", ...args], keyEnv(key))).toMatchObject({
        code: 2,
        stdout: "",
        stderr,
      });
    expect(await rulesPerTeam()).toEqual(before);
  });
});
