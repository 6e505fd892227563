/**
 * Where users are in late 2026: TypeScript 7 (the native compiler, `latest` on the registry). A program
 * using every public export compiles with the README's tsconfig under TypeScript 7 and 5.x, and the
 * offline runner runs a `.ts` program whose own TypeScript is 7 (it has no JS API: Node strips the
 * types), evaluating it afresh for each command.
 */
import { spawn } from "node:child_process";
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { linkPackage } from "../rig";
import { createSimulator, type Simulator } from "secops-sim";
import { built, NO_EXPERIMENTAL_WARNING, ROOT, RIG } from "../helpers/spawn";

jest.setTimeout(240_000);
const TS7 = "7.0.2";

/** Runs a command to its end (asynchronously: the simulator serves from this process). */
function exec(cmd: string, args: string[], cwd: string, env: NodeJS.ProcessEnv = process.env) {
  return new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve, reject) => {
    const child = spawn(cmd, args, { cwd, env });
    let [stdout, stderr] = ["", ""];
    child.stdout.on("data", (c) => (stdout += c));
    child.stderr.on("data", (c) => (stderr += c));
    child.once("error", reject);
    child.once("close", (code) => resolve({ code, stdout, stderr }));
  });
}

/**
 * The documented tsconfig, as written (the first json block after "TypeScript 7 (the native compiler"),
 * in README.md or, once moved, in a page of docs/.
 */
function readmeTsconfig(): object {
  const MARK = "TypeScript 7 (the native compiler";
  const docs = existsSync(join(ROOT, "docs"))
    ? readdirSync(join(ROOT, "docs")).filter((f) => f.endsWith(".md"))
    : [];
  for (const file of [join(ROOT, "README.md"), ...docs.map((f) => join(ROOT, "docs", f))]) {
    const text = readFileSync(file, "utf8");
    const from = text.indexOf(MARK);
    const block = from < 0 ? null : /```json\n([\s\S]*?)\n```/.exec(text.slice(from));
    if (block) return JSON.parse(block[1]);
  }
  throw new Error(`no json block after "${MARK}" in README.md or docs/*.md`);
}

let work: string;
let sim: Simulator;
beforeAll(async () => {
  built("index.js");
  work = mkdtempSync(join(tmpdir(), "secops-ts7-"));
  writeFileSync(
    join(work, "package.json"),
    // "type": "module": Node strips the types of program.ts and reads it as a module, without warning
    // that it had to guess (MODULE_TYPELESS_PACKAGE_JSON); run.cjs stays CommonJS.
    JSON.stringify({
      name: "ts7-program",
      private: true,
      type: "module",
      devDependencies: { typescript: TS7 },
    }),
  );
  const install = await exec("npm", ["install", "--no-audit", "--no-fund", "--prefer-offline"], work);
  if (install.code !== 0) throw new Error(`npm install typescript@${TS7} failed:\n${install.stderr}`);
  // The program's other dependencies: this checkout (as installed), its simulator package and the
  // @pulumi/pulumi it tests.
  linkPackage(work, ROOT);
  symlinkSync(join(ROOT, "simulator"), join(work, "node_modules", "secops-sim"), "dir");
  for (const dep of ["@pulumi/pulumi", "@types/node"]) {
    mkdirSync(join(work, "node_modules", dirname(dep)), { recursive: true });
    symlinkSync(join(ROOT, "node_modules", dep), join(work, "node_modules", dep), "dir");
  }
  // Both tests' programs are checked with the documented tsconfig (the runner type-checks with it too).
  writeFileSync(join(work, "tsconfig.json"), JSON.stringify(readmeTsconfig()));
  sim = await createSimulator({ seed: 71 });
});
afterAll(async () => {
  await sim?.close();
  if (work) rmSync(work, { recursive: true, force: true });
});

test("a program using every public export compiles with the README's tsconfig under TypeScript 7 and 5.x", async () => {
  const program = readFileSync(join(ROOT, "tests", "consumer", "program", "index.ts"));
  writeFileSync(join(work, "index.ts"), program);
  const ts7 = join(work, "node_modules", "typescript", "bin", "tsc");
  const ts5 = join(ROOT, "node_modules", "typescript", "bin", "tsc");
  expect((await exec(process.execPath, [ts7, "--version"], work)).stdout.trim()).toBe(`Version ${TS7}`);
  expect((await exec(process.execPath, [ts5, "--version"], work)).stdout.trim()).toMatch(/^Version 5\./);
  for (const tsc of [ts7, ts5]) {
    const r = await exec(process.execPath, [tsc, "-p", work, "--noEmit"], work);
    expect({ tsc, out: r.stdout + r.stderr, code: r.code }).toEqual({ tsc, out: "", code: 0 });
  }
  // Not vacuous: a wrong argument type fails under TypeScript 7.
  writeFileSync(
    join(work, "index.ts"),
    'import * as secops from "pulumi-secops/native";\nnew secops.HvaAutomationRule("x", { field: 1, search: "s" });\n',
  );
  const bad = await exec(process.execPath, [ts7, "-p", work, "--noEmit"], work);
  expect(bad.code).not.toBe(0);
  expect(bad.stdout).toContain("index.ts(2,37): error TS2322");
  writeFileSync(join(work, "index.ts"), program); // put back: the folder is the next test's too
  // The tsconfig `pulumi new typescript` writes is what TypeScript 7 rejects, and why the README gives
  // another. In a file of its own: tsconfig.json stays the one the runner checks the next program with.
  const pulumiNew = join(work, "tsconfig.pulumi-new.json");
  writeFileSync(
    pulumiNew,
    JSON.stringify({ compilerOptions: { moduleResolution: "node" }, files: ["index.ts"] }),
  );
  expect((await exec(process.execPath, [ts7, "-p", pulumiNew, "--noEmit"], work)).stdout).toContain("TS5108");
  rmSync(pulumiNew);
});

test("the runner runs a .ts program whose own TypeScript is 7, afresh for each command", async () => {
  writeFileSync(
    join(work, "program.ts"),
    `import * as pulumi from "@pulumi/pulumi";
import { HvaAutomationRule, type HvaAutomationRuleArgs } from "pulumi-secops";

interface Team {
  prefix: string;
}
const team: Team = { prefix: new pulumi.Config().require("prefix") };
const args: HvaAutomationRuleArgs = { field: "name", search: \`\${team.prefix}-*\` };
export const rule = new HvaAutomationRule("ts7-rule", args).search;
`,
  );
  writeFileSync(
    join(work, "run.cjs"),
    `const { LifecycleRunner } = require(${JSON.stringify(RIG)});
const [url, key] = process.argv.slice(2);
const runner = (prefix) => new LifecycleRunner({ program: __dirname + "/program.ts", programDir: __dirname,
  statePath: __dirname + "/state.json", config: { "secops:apiKey": key, "secops:baseUrl": url, "project:prefix": prefix },
  project: "project", stack: "dev" });
(async () => {
  const first = runner("ts7a");
  const up1 = await first.up();
  await first.close();
  const second = runner("ts7b");
  const up2 = await second.up();
  const searches = second.state().resources.map((r) => r.outputs.search);
  const outputs = second.outputs();
  const destroy = await second.destroy();
  await second.close();
  const ops = (steps) => steps.map((s) => [s.name, s.op, s.ok]);
  console.log(JSON.stringify({ up1: ops(up1), up2: ops(up2), searches, outputs, destroy: ops(destroy) }));
})().catch((e) => { console.error(e); process.exit(1); });
`,
  );
  await sim.control.resetStats();
  const before = (await sim.control.state()).rules.length;
  const ts7rules = async () =>
    (await sim.control.state()).rules.filter((r) => String(r.search).startsWith("ts7")).map((r) => r.search);
  // Without Node's experimental warnings (Node 22's type stripping, Node 26's FFI: see NO_EXPERIMENTAL_WARNING),
  // nothing may reach stderr.
  const argv = [NO_EXPERIMENTAL_WARNING, join(work, "run.cjs"), sim.url, sim.apiKeys.admin];
  const r = await exec(process.execPath, argv, work);
  expect({ code: r.code, stderr: r.stderr }).toEqual({ code: 0, stderr: "" });
  const out = JSON.parse(r.stdout);
  expect(out.up1).toEqual([["ts7-rule", "create", true]]);
  // The second command evaluated the program again, with the new config: the search changed.
  expect(out.up2).toEqual([["ts7-rule", "replace", true]]);
  expect(out.searches).toEqual(["ts7b-*"]);
  expect(out.outputs).toEqual({ rule: "ts7b-*" });
  expect(out.destroy).toEqual([["ts7-rule", "delete", true]]);
  expect(await ts7rules()).toEqual([]);
  expect((await sim.control.state()).rules.length).toBe(before);
  const writes = (await sim.control.stats()).requests;
  expect(writes["PUT /endpoint/hva/automation"]).toBe(2);
});
