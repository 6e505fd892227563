/**
 * Programs as users write them, through the offline runner (issue 12): data sources with the stack's
 * config (the key as a secret), stack outputs resolved and masked, an edited program re-read by the
 * next step, the project name from Pulumi.yaml, and a TypeScript program on plain Node.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createSimulator, type Simulator } from "pulumi-secops/simulator";
import { LifecycleRunner, formatSteps, linkPackage } from "pulumi-secops/testing";
import { ROOT, built, run } from "../helpers/spawn";

built("testing/index.js");
let sim: Simulator;
let dir: string;
const runners: LifecycleRunner[] = [];
beforeAll(async () => {
  sim = await createSimulator({ seed: 87 });
  dir = mkdtempSync(join(tmpdir(), "secops-programs-"));
  linkPackage(dir, ROOT);
});
afterAll(async () => {
  await Promise.all(runners.map((r) => r.close()));
  await sim.close();
  rmSync(dir, { recursive: true, force: true });
});
const config = () => ({ "secops:apiKey": sim.apiKeys.admin, "secops:baseUrl": sim.url });
function runner(program: string, name: string, extra: Record<string, string> = {}): LifecycleRunner {
  const r = new LifecycleRunner({
    program,
    programDir: dir,
    statePath: join(dir, `${name}.state.json`),
    config: { ...config(), ...extra },
  });
  runners.push(r);
  return r;
}

test("examples/data-sources: data sources get the stack's config; outputs resolve, secrets masked", async () => {
  const r = runner(join(ROOT, "examples", "data-sources", "index.ts"), "data", {
    "data-sources:caseId": "case-003",
  });
  expect(await r.up()).toEqual([]);
  const outputs = r.outputs();
  expect(outputs).toMatchObject({ role: "ADMIN", indicatorCount: expect.any(Number) });
  expect(outputs.unhealthyIntegrations).toEqual(expect.any(Number));
  expect(formatSteps([], outputs)).toContain('    role: "ADMIN"');
  expect(JSON.stringify(outputs)).not.toContain(sim.apiKeys.admin);
});

test("an edited program is re-read by the next step; the project comes from Pulumi.yaml", async () => {
  // In a plain Node process, as users run it (jest keeps its own module registry).
  const prog = join(dir, "edited");
  mkdirSync(prog);
  linkPackage(prog, ROOT);
  writeFileSync(join(prog, "Pulumi.yaml"), "name: edited-project # a comment\nruntime: nodejs\n");
  writeFileSync(
    join(prog, "run.js"),
    `const PULUMI = ${JSON.stringify(join(ROOT, "node_modules", "@pulumi", "pulumi"))};
const { writeFileSync } = require("node:fs");
const { LifecycleRunner } = require("pulumi-secops/testing");
const write = (names) => writeFileSync(__dirname + "/index.js", [
  "const pulumi = require(" + JSON.stringify(PULUMI) + ");",
  'const { HvaAutomationRule } = require("pulumi-secops");',
  'const prefix = new pulumi.Config().require("prefix");',
  ...names.map((n) => 'exports.' + n + ' = new HvaAutomationRule("' + n + '", { field: "name", search: prefix + "' + n + '" }).id;'),
  'exports.key = new pulumi.Config("secops").requireSecret("apiKey");',
].join("\\n"));
(async () => {
  write(["a", "b"]);
  const r = new LifecycleRunner({ program: __dirname + "/index.js", programDir: __dirname,
    statePath: __dirname + "/state.json", config: JSON.parse(process.argv[2]) });
  const up = (await r.up()).map((s) => s.op + " " + s.urn);
  const outputs = r.outputs();
  const ids = Object.fromEntries(r.state().resources.map((x) => [x.name, x.id]));
  write(["a"]);
  const preview = (await r.preview()).map((s) => s.op + " " + s.name);
  await r.destroy();
  await r.close();
  console.log(JSON.stringify({ up, outputs, ids, preview }));
})().catch((e) => { console.error(e); process.exit(1); });
`,
  );
  const res = await run(join(prog, "run.js"), [
    JSON.stringify({ ...config(), "edited-project:prefix": "edited-" }),
  ]);
  expect(res.stderr).toBe("");
  const type = "pulumi-nodejs:dynamic/secops:HvaAutomationRule";
  const out = JSON.parse(res.stdout);
  expect(out).toEqual({
    up: [
      `create urn:pulumi:dev::edited-project::${type}::a`,
      `create urn:pulumi:dev::edited-project::${type}::b`,
    ],
    // After up, outputs are what the steps made (the ids in the state), not the plan's preview values.
    outputs: { key: "[secret]", a: out.ids.a, b: out.ids.b },
    ids: { a: expect.stringMatching(/^hva-/), b: expect.stringMatching(/^hva-/) },
    preview: ["same a", "delete b"],
  });
}, 60_000);

test("a TypeScript program runs through the runner on plain Node (no jest, no ts-node)", async () => {
  const prog = join(dir, "ts");
  mkdirSync(prog);
  linkPackage(prog, ROOT);
  writeFileSync(join(prog, "Pulumi.yaml"), "name: ts-program\nruntime: nodejs\n");
  writeFileSync(
    join(prog, "index.ts"),
    `import { HvaAutomationRule } from "pulumi-secops";
const search: string = "ts-program-*";
export const id = new HvaAutomationRule("ts", { field: "name", search }).search;
`,
  );
  writeFileSync(
    join(prog, "run.js"),
    `const { LifecycleRunner } = require("pulumi-secops/testing");
(async () => {
  const r = new LifecycleRunner({ program: __dirname + "/index.ts", programDir: __dirname,
    statePath: __dirname + "/state.json", config: JSON.parse(process.argv[2]) });
  const up = await r.up();
  const outputs = r.outputs();
  await r.destroy();
  await r.close();
  console.log(JSON.stringify({ up: up.map((s) => s.op + " " + s.name + " " + s.ok), outputs }));
})().catch((e) => { console.error(e); process.exit(1); });
`,
  );
  const res = await run(join(prog, "run.js"), [JSON.stringify(config())]);
  expect(res.stderr).toBe("");
  expect(JSON.parse(res.stdout)).toEqual({ up: ["create ts true"], outputs: { id: "ts-program-*" } });
}, 60_000);
