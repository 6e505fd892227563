/**
 * Programs as users write them, through the offline runner (issue 12): data sources with the stack's
 * config (the key as a secret), stack outputs resolved and masked, an edited program re-read by the
 * next step, the project name from Pulumi.yaml, and a TypeScript program on plain Node.
 */
import { spawn } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createSimulator, type Simulator } from "secops-sim";
import { LifecycleRunner, formatSteps, linkPackage } from "..";
import { ROOT, built, run, RIG } from "../../helpers/spawn";

built("index.js");
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
const { LifecycleRunner } = require(${JSON.stringify(RIG)});
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
    `const { LifecycleRunner } = require(${JSON.stringify(RIG)});
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

/** How many rules each team has (the API's state, every team). */
async function rulesPerTeam(): Promise<Record<string, number>> {
  const counts: Record<string, number> = {};
  for (const r of (await sim.control.state()).rules)
    counts[String(r.teamId)] = (counts[String(r.teamId)] ?? 0) + 1;
  return counts;
}

/**
 * A program folder with `pulumi-secops` installed and a run.js that takes one runner through `steps`
 * in a plain Node process and prints, for each, its steps or its error as JSON (`env` for the process).
 */
function programFolder(name: string, files: Record<string, string>): string {
  const prog = join(dir, name);
  mkdirSync(prog);
  linkPackage(prog, ROOT);
  writeFileSync(join(prog, "Pulumi.yaml"), `name: ${name}\nruntime: nodejs\n`);
  for (const [file, text] of Object.entries(files)) writeFileSync(join(prog, file), text);
  writeFileSync(
    join(prog, "run.js"),
    `const { LifecycleRunner } = require(${JSON.stringify(RIG)});
const [program, config, ...steps] = process.argv.slice(2);
(async () => {
  const r = new LifecycleRunner({ program: __dirname + "/" + program, programDir: __dirname,
    statePath: __dirname + "/state.json", config: JSON.parse(config) });
  const results = [];
  for (const step of steps) {
    try {
      const done = await r[step]();
      results.push({ step, ops: done.map((s) => s.op + " " + s.name + " " + s.ok), outputs: r.outputs() });
    } catch (e) {
      results.push({ step, error: { name: e.name, message: e.message } });
    }
  }
  await r.close();
  console.log(JSON.stringify(results));
})();
`,
  );
  return prog;
}

test("issue 32.3: a failing invoke on the default provider ends its step with the key's own message", async () => {
  expect.assertions(6);
  const prog = programFolder("invoke", {
    "index.js": `const native = require("pulumi-secops/native");
exports.team = native.getIdentityOutput().teamId;
new native.HvaAutomationRule("r", { field: "name", search: "invoke-default-*" });
`,
  });
  const before = await rulesPerTeam();
  await sim.control.resetStats();
  // A too-short key: the step ends with an error (before, the process exited with the step pending).
  const short = JSON.stringify({ "secops:apiKey": "short", "secops:baseUrl": sim.url });
  const failed = await run(join(prog, "run.js"), ["index.js", short, "preview", "up"]);
  expect({ code: failed.code, stderr: failed.stderr }).toEqual({ code: 0, stderr: "" });
  const message =
    "the program failed: output team: Invoke of 'secops:index:getIdentity' failed: " +
    "provider pulumi:providers:secops::default: apiKey: ";
  const errors = JSON.parse(failed.stdout).map((r: { step: string; error?: { message: string } }) => [
    r.step,
    r.error?.message.slice(0, message.length),
    /too short/.test(r.error?.message ?? ""),
  ]);
  expect(errors).toEqual([
    ["preview", message, true],
    ["up", message, true],
  ]);
  expect(Object.keys((await sim.control.stats()).requests)).toEqual([]);
  expect(await rulesPerTeam()).toEqual(before);
  // With a usable key the same invoke answers, in preview and up alike.
  const good = JSON.stringify({ "secops:apiKey": sim.apiKeys.admin, "secops:baseUrl": sim.url });
  const ok = await run(join(prog, "run.js"), ["index.js", good, "preview", "up", "destroy"]);
  expect(ok.stderr).toBe("");
  expect(JSON.parse(ok.stdout)).toEqual([
    { step: "preview", ops: ["create r true"], outputs: { team: "team-acme" } },
    { step: "up", ops: ["create r true"], outputs: { team: "team-acme" } },
    { step: "destroy", ops: ["delete r true"], outputs: { team: "team-acme" } },
  ]);
}, 60_000);

test("issue 32.1: a TypeScript program with a type error fails as Pulumi's runtime fails it, unless transpile-only", async () => {
  expect.assertions(6);
  const prog = programFolder("typed", {
    "index.ts": `import * as native from "pulumi-secops/native";

const retries: number = "3";
export const search = new native.HvaAutomationRule("typed", { field: "name", search: "typed-*" }).search;
`,
  });
  const config = JSON.stringify({ "secops:apiKey": sim.apiKeys.admin, "secops:baseUrl": sim.url });
  const before = await rulesPerTeam();
  await sim.control.resetStats();
  const failed = await run(join(prog, "run.js"), ["index.ts", config, "preview", "up"]);
  expect(failed.stderr).toBe("");
  const error = {
    name: "TSError",
    message:
      "⨯ Unable to compile TypeScript:\nindex.ts(3,7): error TS2322: Type 'string' is not assignable to type 'number'.",
  };
  expect(JSON.parse(failed.stdout)).toEqual([
    { step: "preview", error },
    { step: "up", error },
  ]);
  expect(Object.keys((await sim.control.stats()).requests)).toEqual([]);
  expect(await rulesPerTeam()).toEqual(before);
  // Opted out as Pulumi allows: the program runs as it transpiles.
  const transpiled = await run(join(prog, "run.js"), ["index.ts", config, "up", "destroy"], {
    PULUMI_NODEJS_TRANSPILE_ONLY: "true",
  });
  expect(transpiled.stderr).toBe("");
  expect(JSON.parse(transpiled.stdout)).toEqual([
    { step: "up", ops: ["create typed true"], outputs: { search: "typed-*" } },
    { step: "destroy", ops: ["delete typed true"], outputs: { search: "typed-*" } },
  ]);
}, 60_000);

test("issue 32.1: with TypeScript 7 alone (no JS API) the program's own tsc type-checks it", async () => {
  expect.assertions(4);
  const prog = programFolder("typed7", {
    "package.json": JSON.stringify({
      name: "typed7",
      private: true,
      devDependencies: { typescript: "7.0.2" },
    }),
    "index.ts": `import * as native from "pulumi-secops/native";

const retries: number = "3";
new native.HvaAutomationRule("typed7", { field: "name", search: "typed7-*" });
`,
  });
  const install = await new Promise<number | null>((done) =>
    spawn("npm", ["install", "--no-audit", "--no-fund", "--prefer-offline"], {
      cwd: prog,
      stdio: "ignore",
    }).once("close", done),
  );
  expect(install).toBe(0);
  // linkPackage ran before the install, which may drop what it does not know: link again.
  linkPackage(prog, ROOT);
  const config = JSON.stringify({ "secops:apiKey": sim.apiKeys.admin, "secops:baseUrl": sim.url });
  await sim.control.resetStats();
  const failed = await run(join(prog, "run.js"), ["index.ts", config, "preview"]);
  expect(failed.stderr).toBe("");
  expect(JSON.parse(failed.stdout)).toEqual([
    {
      step: "preview",
      error: {
        name: "TSError",
        message:
          "⨯ Unable to compile TypeScript:\nindex.ts(3,7): error TS2322: Type 'string' is not assignable to type 'number'.",
      },
    },
  ]);
  expect(Object.keys((await sim.control.stats()).requests)).toEqual([]);
}, 120_000);
