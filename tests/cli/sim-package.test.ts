/**
 * Issue 41: the simulator is its own package (secops-sim). `secops sim` loads it at run time, and
 * only then; where it is not installed, `secops sim` names the fix and exits 2 while every other
 * command works. The built `secops` runs from a copy of the package (its dist/ and package.json) whose
 * node_modules holds this checkout's packages but secops-sim, as a project that installed only
 * pulumi-secops has; then secops-sim is linked in and the same command runs the simulator.
 */
import { cpSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { SIM_MISSING } from "../../provider/cli/secops";
import { ROOT, built, builtSim, run } from "../helpers/spawn";

let work: string;
let secops: string;
beforeAll(() => {
  built("cli/secops.js");
  builtSim();
  work = mkdtempSync(join(tmpdir(), "secops-sim-package-"));
  const pkg = join(work, "node_modules", "pulumi-secops");
  cpSync(join(ROOT, "dist"), join(pkg, "dist"), {
    recursive: true,
    filter: (src) => !/[/\\]dist[/\\](plugin|release)$/.test(src),
  });
  cpSync(join(ROOT, "package.json"), join(pkg, "package.json"));
  for (const name of readdirSync(join(ROOT, "node_modules")))
    if (name !== "secops-sim" && name !== ".bin" && !name.startsWith("."))
      symlinkSync(join(ROOT, "node_modules", name), join(work, "node_modules", name), "dir");
  secops = join(pkg, "dist", "cli", "secops.js");
});
afterAll(() => rmSync(work, { recursive: true, force: true }));

test("without the simulator package, `secops sim` names the fix and exits 2; other commands work", async () => {
  expect(SIM_MISSING).toContain("npm install --save-dev secops-sim");
  const missing = { code: 2, stdout: "", stderr: `secops: ${SIM_MISSING}\n` };
  expect(await run(secops, ["sim", "--port", "0"])).toEqual(missing);
  expect(await run(secops, ["help", "sim"])).toEqual(missing);
  expect(await run(secops, ["--base-url", "http://127.0.0.1:9", "sim", "ctl", "rules"])).toEqual(missing);
  const version = JSON.parse(readFileSync(join(ROOT, "package.json"), "utf8")).version;
  expect(await run(secops, ["--version"])).toEqual({ code: 0, stdout: `${version}\n`, stderr: "" });
  const help = await run(secops, ["--help"]);
  expect({ code: help.code, stderr: help.stderr }).toEqual({ code: 0, stderr: "" });
  expect(help.stdout).toMatch(/\n {2}sim +Run a local stand-in/);
});

test("with the simulator package installed beside it, `secops sim` runs the simulator's command", async () => {
  mkdirSync(join(work, "node_modules"), { recursive: true });
  symlinkSync(join(ROOT, "simulator"), join(work, "node_modules", "secops-sim"), "dir");
  try {
    const help = await run(secops, ["help", "sim"]);
    expect({ code: help.code, stderr: help.stderr }).toEqual({ code: 0, stderr: "" });
    expect(help.stdout).toMatch(/^Usage: secops sim \[options\] \[command\]\n/);
    expect(help.stdout).toContain("$ secops sim --port 8080");
    const usage = await run(secops, ["sim", "--port", "x"]);
    expect(usage).toEqual({
      code: 2,
      stdout: "",
      stderr:
        "error: option '-p, --port <port>' argument 'x' is invalid. port must be a non-negative integer\n",
    });
  } finally {
    rmSync(join(work, "node_modules", "secops-sim"));
  }
});
