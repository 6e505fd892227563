/**
 * Every command line of every README (package and examples) is accounted for (issue 23 point 8):
 * run here as written against the simulator (a synopsis through concrete instances that use only its
 * flags), run word for word by a named test, or a `pulumi` line in a block marked as needing the
 * Pulumi CLI. A new command line that none of these covers fails this test.
 */
import { spawn } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createSimulator, type Simulator } from "pulumi-secops/simulator";
import { built, ROOT } from "../helpers/spawn";

jest.setTimeout(120_000);
const MARKER = "# with the Pulumi CLI";
const BIN: Record<string, string> = {
  secops: built("cli/secops.js"),
  "secops-sim": built("cli/secops-sim.js"),
};

/** Each command line of each sh block: its file, its text (continuations joined), its block's marker. */
function commandLines(): Array<{ file: string; line: string; marked: boolean }> {
  const files = ["README.md", ...readdirSync(join(ROOT, "examples")).map((e) => `examples/${e}/README.md`)];
  const out: Array<{ file: string; line: string; marked: boolean }> = [];
  for (const file of files.filter((f) => existsSync(join(ROOT, f)))) {
    const text = readFileSync(join(ROOT, file), "utf8");
    for (const block of text.matchAll(/^ *```(?:sh|bash|shell)\n([\s\S]*?)^ *```/gm)) {
      const lines = block[1]
        .replace(/\\\n\s*/g, "")
        .split("\n")
        .map((l) => l.trim());
      const marked = lines[0] === MARKER;
      for (const l of lines) {
        const line = l.replace(/\s+#.*$/, "").trim();
        if (line && !line.startsWith("#")) out.push({ file, line, marked });
      }
    }
  }
  return out;
}

/** Words of a command line as a shell splits them (quotes removed). */
const words = (line: string) =>
  [...line.matchAll(/"([^"]*)"|'([^']*)'|(\S+)/g)].map((m) => m[1] ?? m[2] ?? m[3]);

/** Lines run word for word by another test: that test's file and a string it must contain. */
const TESTED_BY: Record<string, [string, string]> = {
  "npm ci && npm run demo": ["tests/engine/demo.test.ts", "scripts/demo.js"],
  "npm run demo:native": ["tests/native/runner.test.ts", "npm run demo:native"],
  "npm test": [".ci/run", "npm test"],
  "npm install ./pulumi-secops-0.1.0.tgz @pulumi/pulumi": ["tests/consumer/consumer.test.ts", '"pack"'],
  "npm install ../../pulumi-secops-0.1.0.tgz @pulumi/pulumi": ["tests/consumer/consumer.test.ts", '"pack"'],
  "npm install": ["tests/consumer/consumer.test.ts", '"install"'],
  "npm run package:plugin": ["tests/native/archive.test.ts", "npm run package:plugin"],
  "export SECOPS_BASE_URL=http://127.0.0.1:8080 SECOPS_API_KEY=<admin key it prints>": [
    "tests/cli/readme-commands.test.ts",
    "SECOPS_BASE_URL: sim.url",
  ],
  "npm exec --no -- secops-sim --port 8080 [--strict-spec] [--seed 1] [--state state.json] [--faults '429:0.1@PUT /endpoint'] [--big-case 5000] [--csv-rows 1000000] [--page-base 0] [--max-page-size 7]":
    ["tests/cli/cli.test.ts", "secops sim: starts the simulator"],
  "npm exec --no -- secops drift --state stack.json [--key-env NAME]... [--ignore file] [--format table|json|markdown]":
    ["tests/cli/drift.test.ts", "--key-env"],
  "TEAM_A_KEY=... TEAM_B_KEY=... SECOPS_BASE_URL=https://secops.example.com secops drift --state stack.json --key-env TEAM_A_KEY --key-env TEAM_B_KEY [--ignore ignore.txt] [--format table|json|markdown]":
    ["tests/cli/drift.test.ts", "--key-env"],
};

/** A git URL cannot be fetched here (no network but the npm registry): the one line not run. */
const UNREACHABLE = ['npm install "git+https://<host>/<org>/pulumi-secops.git#v0.1.0" @pulumi/pulumi'];

let sim: Simulator;
let cwd: string;
let ids: { rule: string; other: string };
beforeAll(async () => {
  sim = await createSimulator({ seed: 31 });
  cwd = mkdtempSync(join(tmpdir(), "secops-readme-"));
  writeFileSync(join(cwd, "shot.png"), Buffer.from([137, 80, 78, 71]));
  writeFileSync(join(cwd, "stack.json"), JSON.stringify({ version: 3, deployment: { resources: [] } }));
  const rules = (await sim.control.state()).rules;
  ids = { rule: String(rules[0].id), other: String(rules[1].id) };
});
afterAll(async () => {
  await sim.close();
  rmSync(cwd, { recursive: true, force: true });
});

/** Concrete runs of each line run here: the synopsis's own words, or instances of it. */
function runsOf(line: string): string[][] {
  const concrete = !/[[<]/.test(line);
  const w = words(line);
  if (concrete) return [w];
  const base = w.slice(
    0,
    w.findIndex((x) => x.startsWith("[") || x.startsWith("<")),
  );
  const each: Record<string, string[][]> = {
    "integrations count": [[], ["--search", "s"]],
    "cases indicators": [[], ["--sort", "asc", "--json"]],
    "hva export": [
      [],
      ["--format", "typescript", "--native", "--out", "file"],
      ["--format", "import", "--out", "file", "--force"],
      // Once the synopsis shows --state (issue 32): a stack export that holds no rule.
      ...(line.includes("--state") ? [["--state", "stack.json", "--format", "import"]] : []),
    ],
    "ctl rules": [[], ["--json"]],
    "ctl users": [[], ["--json"]],
    "ctl add-rule": [
      ["--team", "team-client-1", "--field", "name", "--search", "readme-*"],
      ["--team", "team-client-2", "--field", "name", "--search", "readme-off-*", "--disabled"],
    ],
    "ctl set-rule": [[ids.rule, "--enabled", "false", "--search", "text", "--field", "name"]],
    "ctl set-user": [
      [
        "du-team-acme-005",
        "--needs-chat-ops-welcome",
        "true",
        "--chat-ops-onboarding-user",
        "false",
        "--credentials-exposed",
        "true",
      ],
    ],
    "ctl delete-rule": [[ids.other]],
    "ctl delete-user": [["du-team-acme-004"]],
    "ctl faults": [["429:0.1@PUT /endpoint"], ["--clear"]],
    "ctl stats": [[], ["--reset"]],
  };
  const key = Object.keys(each).find((k) => line.includes(` ${k} `) || line.endsWith(` ${k}`));
  if (!key) throw new Error(`no concrete instance for the synopsis: ${line}`);
  return each[key].map((extra) => [...base, ...extra]);
}

function exec(argv: string[], env: NodeJS.ProcessEnv) {
  return new Promise<{ code: number | null; stderr: string }>((resolve) => {
    const child = spawn(process.execPath, argv, { cwd, env, stdio: ["ignore", "ignore", "pipe"] });
    let stderr = "";
    const timer = setTimeout(() => {
      stderr += "(killed after 20 s)";
      child.kill("SIGKILL");
    }, 20_000);
    child.stderr.on("data", (c) => (stderr += c));
    child.once("close", (code) => {
      clearTimeout(timer);
      resolve({ code, stderr });
    });
  });
}

test("every README command line is run here, run by a named test, or marked as needing the Pulumi CLI", async () => {
  const lines = commandLines();
  expect(lines.length).toBeGreaterThan(30);
  const env = {
    ...process.env,
    SECOPS_BASE_URL: sim.url,
    SECOPS_API_KEY: sim.apiKeys.admin,
    SECOPS_SIM_TOKEN: sim.controlToken,
  };
  const unaccounted: string[] = [];
  const failed: string[] = [];
  let ran = 0;
  for (const { file, line, marked } of lines) {
    if (line.startsWith("pulumi ") || line.includes("&& pulumi ")) {
      if (!marked) unaccounted.push(`${file}: ${line} (a pulumi line outside a "${MARKER}" block)`);
      continue;
    }
    const by = TESTED_BY[line];
    if (by) {
      const [test, needle] = by;
      if (!readFileSync(join(ROOT, test), "utf8").includes(needle))
        unaccounted.push(`${file}: ${line} (${test} does not run it)`);
      continue;
    }
    if (UNREACHABLE.includes(line)) continue;
    const npmExec = /^npm exec --no -- (secops|secops-sim) /.exec(line);
    if (!npmExec) {
      unaccounted.push(`${file}: ${line}`);
      continue;
    }
    for (const run of runsOf(line)) {
      const argv = run.slice(4); // after `npm exec --no --`
      const flags = argv.slice(1).filter((a) => a.startsWith("--"));
      for (const f of flags) if (!line.includes(f)) failed.push(`${line}: ${f} is not in the synopsis`);
      const r = await exec([BIN[argv[0]], ...argv.slice(1)], env);
      ran++;
      if (r.code !== 0) failed.push(`${argv.join(" ")}: exit ${r.code}: ${r.stderr.trim()}`);
    }
  }
  expect(unaccounted).toEqual([]);
  expect(failed).toEqual([]);
  expect(ran).toBeGreaterThanOrEqual(20);
  // What the commands did, in the API: the rule was changed, the other deleted, the user deleted.
  const state = await sim.control.state();
  expect(state.rules.find((r) => r.id === ids.rule)).toMatchObject({ enabled: false, search: "text" });
  expect(state.rules.some((r) => r.id === ids.other)).toBe(false);
  expect(state.users.some((u) => u.id === "du-team-acme-004")).toBe(false);
  expect(existsSync(join(cwd, "cases.csv")) && existsSync(join(cwd, "file"))).toBe(true);
});
