/**
 * Issue 45 point 5: every `--help` page of `secops` and `secops-sim` (every group and every command,
 * found by walking the help's own "Commands:" lists) ends with an example, and every example line
 * runs as written, through `sh`, against the simulator: `secops` and `secops-sim` are the built
 * commands, `pulumi` the real CLI in a Pulumi YAML project with a local backend whose provider is
 * this checkout's plugin (`--yes` from PULUMI_SKIP_CONFIRMATIONS, as in CI). A line that starts a
 * simulator (`secops-sim --port 8080`) must print its export lines; it is then stopped. What the
 * examples did is checked in the simulator's state and the files they wrote.
 */
import { spawn } from "node:child_process";
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { delimiter, join } from "node:path";
import { createSimulator, type Simulator } from "secops-sim";
import { pulumiCli } from "../helpers/pulumi-cli";
import { ROOT, built, builtSim } from "../helpers/spawn";

jest.setTimeout(240_000);
const BIN = { secops: built("cli/secops.js"), "secops-sim": builtSim() };

let sim: Simulator;
let cwd: string;
let env: NodeJS.ProcessEnv;
beforeAll(async () => {
  sim = await createSimulator({ seed: 1 });
  cwd = mkdtempSync(join(tmpdir(), "secops-help-"));
  const bin = join(cwd, ".bin");
  mkdirSync(bin);
  for (const [name, file] of Object.entries(BIN)) {
    writeFileSync(join(bin, name), `#!/bin/sh\nexec "${process.execPath}" "${file}" "$@"\n`);
    chmodSync(join(bin, name), 0o755);
  }
  writeFileSync(join(cwd, "shot.png"), Buffer.from([137, 80, 78, 71]));
  writeFileSync(join(cwd, "ignore.txt"), "legacy-* # retired by the asset team\n");
  writeFileSync(
    join(cwd, "Pulumi.yaml"),
    `name: help-examples\nruntime: yaml\nplugins:\n  providers:\n    - name: secops\n      path: ${join(ROOT, "bin")}\n`,
  );
  mkdirSync(join(cwd, ".backend"));
  env = {
    ...process.env,
    PATH: [bin, pulumiCli().bin, process.env.PATH ?? ""].join(delimiter),
    SECOPS_BASE_URL: sim.url,
    SECOPS_API_KEY: sim.apiKeys.admin,
    SECOPS_SIM_TOKEN: sim.controlToken,
    TEAM_A_KEY: sim.apiKeys.client1Admin,
    TEAM_B_KEY: sim.apiKeys.client2Admin,
    GITHUB_STEP_SUMMARY: join(cwd, "summary.md"),
    PULUMI_BACKEND_URL: `file://${join(cwd, ".backend")}`,
    PULUMI_HOME: join(cwd, ".backend", "home"),
    PULUMI_CONFIG_PASSPHRASE: "help-examples",
    PULUMI_SKIP_UPDATE_CHECK: "true",
    PULUMI_DIY_BACKEND_NO_LEGACY_WARNING: "true",
    PULUMI_SKIP_CONFIRMATIONS: "true",
  };
  const init = await sh("pulumi stack init dev");
  if (init.code !== 0) throw new Error(`pulumi stack init: ${init.stderr}`);
});
afterAll(async () => {
  await sim.close();
  rmSync(cwd, { recursive: true, force: true });
});

interface Ran {
  code: number | null;
  stdout: string;
  stderr: string;
}

/**
 * Runs a line through `sh` in the examples' folder. `until`: a line that serves until stopped, ended
 * (its process group, which this test started) once its output matches.
 */
function sh(line: string, until?: RegExp): Promise<Ran> {
  return new Promise((done) => {
    const child = spawn("sh", ["-c", line], { cwd, env, detached: true, stdio: ["ignore", "pipe", "pipe"] });
    let stdout = "";
    let stderr = "";
    const stop = (signal: NodeJS.Signals) => {
      try {
        process.kill(-child.pid!, signal);
      } catch {
        // already gone
      }
    };
    const timer = setTimeout(() => {
      stderr += "(killed after 60 s)";
      stop("SIGKILL");
    }, 60_000);
    child.stdout.on("data", (c) => {
      stdout += c;
      if (until?.test(stdout)) stop("SIGTERM");
    });
    child.stderr.on("data", (c) => (stderr += c));
    child.once("close", (code) => {
      clearTimeout(timer);
      done({ code: until?.test(stdout) ? 0 : code, stdout, stderr });
    });
  });
}

/** The subcommands a help page lists (without commander's own `help`). */
const subcommands = (help: string) =>
  [...(help.split("\nCommands:\n")[1] ?? "").matchAll(/^ {2}([a-z][a-z-]*)/gm)]
    .map((m) => m[1])
    .filter((c) => c !== "help");

/** Every command path under `root`, with its help page. */
async function helpPages(root: string[]): Promise<Array<{ path: string[]; help: string }>> {
  const pages: Array<{ path: string[]; help: string }> = [];
  const walk = async (path: string[]) => {
    const r = await sh(`${path.join(" ")} --help`);
    expect({ path, code: r.code, stderr: r.stderr }).toEqual({ path, code: 0, stderr: "" });
    pages.push({ path, help: r.stdout });
    for (const sub of subcommands(r.stdout)) await walk([...path, sub]);
  };
  await walk(root);
  return pages;
}

/** The example lines at the end of a help page (`  $ ...`), or [] when it does not end with them. */
function closingExample(help: string): string[] {
  const lines = help.trimEnd().split("\n");
  const start = lines.lastIndexOf("Example:");
  if (start < 0) return [];
  const tail = lines.slice(start + 1);
  return tail.every((l) => l.startsWith("  $ ")) ? tail.map((l) => l.slice(4)) : [];
}

/** A line that starts a simulator (not `ctl`): it serves until stopped. */
const serves = (line: string) => /^(secops-sim|secops sim)( |$)/.test(line) && !/ ctl( |$)/.test(line);

test("every help page ends with an example, and every example runs as written", async () => {
  const pages = [...(await helpPages(["secops"])), ...(await helpPages(["secops-sim"]))];
  // The commands of the API the client offers, and the simulator's: all of them have a page.
  const paths = pages.map((p) => p.path.join(" "));
  for (const p of [
    "secops users list",
    "secops users get",
    "secops users update",
    "secops hva list",
    "secops hva get",
    "secops hva create",
    "secops hva enable",
    "secops hva disable",
    "secops hva export",
    "secops sim ctl add-user",
    "secops-sim ctl add-user",
  ])
    expect(paths).toContain(p);
  expect(pages.length).toBeGreaterThan(40);
  const missing = pages.filter((p) => closingExample(p.help).length === 0).map((p) => p.path.join(" "));
  expect(missing).toEqual([]);

  const failed: string[] = [];
  // `secops sim ...` is `secops-sim ...` mounted under `secops`: each example runs once, in the
  // form met first (the `secops` pages come first).
  const once = new Map<string, string>();
  for (const line of pages.flatMap((p) => closingExample(p.help))) {
    const key = line.replace(/^secops sim( |$)/, "secops-sim$1");
    if (!once.has(key)) once.set(key, line);
  }
  const lines = [...once.values()];
  for (const line of lines) {
    // A fixed port may be taken here: the simulator's own way of picking a free one.
    const r = serves(line)
      ? await sh(line.replace("--port 8080", "--port 0"), /Press Ctrl-C to stop\./)
      : await sh(line);
    // `secops drift` exits 3 when it finds something: the example's state holds rules other keys lack.
    const ok = r.code === 0 || (r.code === 3 && line.includes("secops drift"));
    if (!ok || (r.stdout === "" && !/--out |>>|--clear|--reset/.test(line)))
      failed.push(`${line}: exit ${r.code}: ${r.stderr.trim() || r.stdout.trim() || "(no output)"}`);
  }
  expect(failed).toEqual([]);
  expect(lines.length).toBeGreaterThan(40);

  // What the examples did: a rule made by hand (`hva create`), one made by `ctl add-rule`, one
  // deleted out of band; a user added to team-client-1; the files the `--out` examples wrote.
  const state = await sim.control.state();
  expect(state.rules.filter((r) => r.search === "kiosk-*").map((r) => r.teamId)).toEqual([
    "team-acme",
    "team-client-1",
  ]);
  expect(state.rules.some((r) => r.id === "hva-0002-38b61f")).toBe(false);
  expect(state.users.find((u) => u.email === "kim@client-1.example")).toMatchObject({
    teamId: "team-client-1",
  });
  for (const file of ["cases.csv", "rules.json", "stack.json", "summary.md", "index.ts", "adopt.ts"])
    expect({ file, written: existsSync(join(cwd, file)) }).toEqual({ file, written: true });
  expect(readFileSync(join(cwd, "summary.md"), "utf8")).toMatch(/^## SecOps drift report/);
});
