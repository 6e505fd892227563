/**
 * examples/ci-drift/drift.yml step by step with the real CLI: a stack of the example's program whose
 * key comes from SECOPS_API_KEY, as the workflow gives it; the "secops drift" step's shell lines as
 * written (the stack export and `npm exec --no -- secops drift ... >> $GITHUB_STEP_SUMMARY`); then the
 * preview step (refresh, expect no changes). Clean, then with a rule made by hand and a rule changed by
 * hand: the summary and the exit codes are what the workflow relies on.
 */
import { spawn } from "node:child_process";
import { chmodSync, copyFileSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { delimiter, join } from "node:path";
import { createSimulator, type Simulator } from "secops-sim";
import { cliEnv, pulumiCli } from "../helpers/pulumi-cli";
import { engineStack, type EngineStack } from "../helpers/pulumi-stack";
import { rules } from "../helpers/sim-counts";
import { ROOT, built } from "../helpers/spawn";

jest.setTimeout(300_000);
const SECOPS = built("cli/secops.js");
const EXAMPLE = join(ROOT, "examples", "ci-drift");
let sim: Simulator;
let s: EngineStack;

/** The workflow's steps: the drift step's shell lines and the preview step's `with:` settings. */
function workflow(): { run: string[]; preview: Record<string, string> } {
  const text = readFileSync(join(EXAMPLE, "drift.yml"), "utf8");
  const drift = text.slice(text.indexOf("- name: secops drift"));
  const block = drift.slice(drift.indexOf("run: |") + "run: |".length).split("\n");
  const run: string[] = [];
  for (const l of block.slice(1)) {
    if (!/^ {10}\S/.test(l)) break;
    run.push(l.trim());
  }
  const withBlock = text.slice(text.indexOf("command: preview") - 20);
  const preview = Object.fromEntries(
    [...withBlock.matchAll(/^ {10}([a-z-]+): (\S+)$/gm)].slice(0, 5).map((m) => [m[1], m[2]]),
  );
  return { run, preview };
}

/** Runs the drift step's lines in bash, as the runner would, in the program's folder. */
function driftStep(lines: string[], summary: string): Promise<{ code: number; out: string }> {
  const script = ["set -e", ...lines].join("\n").replaceAll("${{ vars.PULUMI_STACK }}", "dev");
  return new Promise((resolve, reject) => {
    const child = spawn("bash", ["-c", script], {
      cwd: s.dir,
      env: {
        ...process.env,
        ...cliEnv(join(s.dir, ".backend"), {
          PATH: [pulumiCli().bin, join(s.dir, "node_modules", ".bin"), process.env.PATH ?? ""].join(
            delimiter,
          ),
          SECOPS_API_KEY: sim.apiKeys.admin,
          SECOPS_BASE_URL: sim.url,
          GITHUB_STEP_SUMMARY: summary,
        }),
      },
    });
    let out = "";
    child.stdout.on("data", (c) => (out += c));
    child.stderr.on("data", (c) => (out += c));
    child.on("error", reject);
    child.on("close", (code) => resolve({ code: code ?? -1, out }));
  });
}

beforeAll(async () => {
  sim = await createSimulator({ seed: 410 });
  // The key only in the environment, as the workflow gives it (no secops:apiKey in the stack config).
  s = await engineStack("secops-drift", join(EXAMPLE, "index.ts"), {
    SECOPS_API_KEY: sim.apiKeys.admin,
    SECOPS_BASE_URL: sim.url,
  });
  copyFileSync(join(EXAMPLE, "secops-drift-ignore.txt"), join(s.dir, "secops-drift-ignore.txt"));
  // What `npm ci` leaves: the package's bin in node_modules/.bin.
  mkdirSync(join(s.dir, "node_modules", ".bin"));
  const bin = join(s.dir, "node_modules", ".bin", "secops");
  writeFileSync(bin, `#!/bin/sh\nexec "${process.execPath}" "${SECOPS}" "$@"\n`);
  chmodSync(bin, 0o755);
});
afterAll(async () => {
  s?.remove();
  await sim?.close();
});

test("drift.yml step by step: clean; then a hand-made rule fails the drift step (exit 3) and a change by hand fails the preview step", async () => {
  const { run, preview } = workflow();
  expect(run).toEqual([
    'pulumi stack export --stack "${{ vars.PULUMI_STACK }}" --file stack.json',
    'npm exec --no -- secops drift --state stack.json --ignore secops-drift-ignore.txt --format markdown --json-out drift.json >> "$GITHUB_STEP_SUMMARY"',
  ]);
  expect(preview).toMatchObject({ command: "preview", refresh: "true", "expect-no-changes": "true" });
  const options = { refresh: true, expectNoChanges: true };

  const up = await s.op("up");
  expect(up).toMatchObject({ ok: true, summary: { create: 3 } });
  // Every other rule of the team goes in the ignore file: the seed's rules are made by hand too.
  const managed = Object.values(up.outputs as Record<string, string>);
  const seeded = (await sim.control.state()).rules.filter(
    (r) => r.teamId === "team-acme" && !managed.includes(String(r.id)),
  );
  writeFileSync(
    join(s.dir, "secops-drift-ignore.txt"),
    `${readFileSync(join(EXAMPLE, "secops-drift-ignore.txt"), "utf8")}${seeded.map((r) => `${r.id} # seeded`).join("\n")}\n`,
  );

  const clean = await driftStep(run, join(s.dir, "summary-1.md"));
  const cleanSummary = readFileSync(join(s.dir, "summary-1.md"), "utf8");
  expect({ ...clean, cleanSummary }).toEqual({
    code: 0,
    out: "",
    cleanSummary: expect.stringMatching(/^## SecOps drift report\n/),
  });
  expect((await s.op("preview", options)).ok).toBe(true);

  const before = await rules(sim);
  const hand = await sim.control.addRule({ teamId: "team-acme", searchField: "name", search: "hand-*" });
  const dc = (up.outputs as { domainControllers: string }).domainControllers;
  await sim.control.patchRule(dc, { enabled: false });
  const changed = await rules(sim);
  expect(changed).not.toEqual(before);
  const found = await driftStep(run, join(s.dir, "summary-2.md"));
  expect(found.code).toBe(3);
  const summary = readFileSync(join(s.dir, "summary-2.md"), "utf8");
  expect(summary).toContain(hand.id);
  expect(summary).toContain(dc);
  // The whole report, for the run's artifact, beside the summary.
  const artifact = JSON.parse(readFileSync(join(s.dir, "drift.json"), "utf8")) as {
    teams: Array<{ unmanaged: Array<{ id: string }>; drifted: Array<{ id: string }> }>;
  };
  expect(artifact.teams[0].unmanaged.map((u) => u.id)).toEqual([hand.id]);
  expect(artifact.teams[0].drifted.map((d) => d.id)).toEqual([dc]);
  const failed = await s.op("preview", options);
  expect(failed.ok).toBe(false);
  expect(failed.stdout).toMatch(
    /~ +pulumi-nodejs:dynamic\/secops:HvaAutomationRule domain-controllers update/,
  );
  // The job reports; it changes nothing.
  expect(await rules(sim)).toEqual(changed);
});
