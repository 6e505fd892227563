/**
 * examples/ci-drift/drift.yml step by step with the real CLI, in the order the workflow runs its steps
 * (issue 56): the install (what `npm ci` of the example's package.json leaves: this package from its
 * packed tarball, and the example's other dependencies, nothing else of this checkout), the `secops
 * drift` step's shell lines as written (the stack export and `npm exec --no -- secops drift ... >>
 * $GITHUB_STEP_SUMMARY`), the artifact it keeps, the `secops policy` step's line as written
 * (`pulumi policy analyze`, which needs @pulumi/policy from the example's package.json), then the
 * preview step (refresh, expect no changes). A stack of the example's program whose key comes from
 * SECOPS_API_KEY, as the workflow gives it. The job runs on a clean stack, then after a rule made by
 * hand, one disabled and one deleted by hand: the summary and the exit codes are what the workflow relies
 * on, and the failed preview is the one examples/ci-drift/README.md shows.
 */
import { spawn } from "node:child_process";
import { copyFileSync, existsSync, readFileSync, writeFileSync } from "node:fs";
import { delimiter, join } from "node:path";
import { createSimulator, type Simulator } from "secops-sim";
import { installNamed, installPacked } from "../cli/packed-install";
import { cliEnv, pulumiCli } from "../helpers/pulumi-cli";
import { engineStack, type EngineStack } from "../helpers/pulumi-stack";
import { rules } from "../helpers/sim-counts";
import { ROOT } from "../helpers/spawn";

jest.setTimeout(300_000);
const EXAMPLE = join(ROOT, "examples", "ci-drift");
let sim: Simulator;
let s: EngineStack;

/** One step of the workflow: what it uses or its name, its `run` lines and its `with:` settings. */
interface Step {
  uses?: string;
  name?: string;
  run: string[];
  with: Record<string, string>;
}

/** The workflow's steps, in order (drift.yml's `steps:` list). */
function workflowSteps(text: string): Step[] {
  const lines = text.slice(text.indexOf("    steps:\n") + "    steps:\n".length).split("\n");
  const steps: Step[] = [];
  let block: "run" | "with" | undefined;
  for (const line of lines) {
    const start = /^ {6}- (\w[\w-]*): (.*)$/.exec(line);
    if (start) steps.push({ run: [], with: {} });
    const step = steps[steps.length - 1];
    const field = start ?? /^ {8}(\w[\w-]*): ?(.*)$/.exec(line);
    if (field) {
      const [, key, value] = field;
      block = key === "with" ? "with" : key === "run" && value === "|" ? "run" : undefined;
      if (key === "uses" || key === "name") step[key] = value;
      if (key === "run" && value !== "|") step.run.push(value);
      continue;
    }
    if (block === "run" && /^ {10}\S/.test(line)) step.run.push(line.trim());
    const setting = /^ {10}([\w-]+): (.*)$/.exec(line);
    if (block === "with" && setting) step.with[setting[1]] = setting[2];
  }
  return steps;
}

/** Runs a step's lines in bash, as the runner would, in the program's folder. */
function shell(lines: string[], summary: string): Promise<{ code: number; out: string }> {
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

/** What one run of the job did, step by step. */
interface Job {
  drift: { code: number; out: string };
  summary: string;
  artifact: boolean;
  policy: { code: number; out: string };
  /** The preview's display and its error, as the job's log shows them. */
  preview: { ok: boolean; shown: string };
}

/** Runs the job's steps after the install, in the workflow's order; `n` numbers its summary file. */
async function job(steps: Step[], n: number): Promise<Job> {
  const done: Partial<Job> = {};
  const summary = join(s.dir, `summary-${n}.md`);
  for (const step of steps) {
    if (step.name === "secops drift") done.drift = await shell(step.run, summary);
    else if (step.uses?.startsWith("actions/upload-artifact"))
      done.artifact = existsSync(join(s.dir, step.with.path.replace("${{ env.PROGRAM_DIR }}/", "")));
    else if (step.name === "secops policy") done.policy = await shell(step.run, summary);
    else if (step.with.command === "preview") {
      const r = await s.op("preview", { refresh: true, expectNoChanges: true });
      done.preview = { ok: r.ok, shown: `${r.stdout}\n${r.stderr}` };
    }
  }
  return { ...(done as Job), summary: readFileSync(summary, "utf8") };
}

/** The README's failed preview, as the job's log shows it (the block under "Reading a failure"). */
function readmePreview(): string {
  const readme = readFileSync(join(EXAMPLE, "README.md"), "utf8");
  const section = readme.slice(readme.indexOf("## Reading a failure"));
  return /^```text\n([\s\S]*?)^```/m.exec(section)![1];
}

/**
 * A preview's lines without what differs from run to run: the progress lines (`@ previewing update...`)
 * and the refresh's, whose order follows the engine's concurrency; spaces collapsed.
 */
const planOf = (display: string) =>
  display
    .split("\n")
    .map((l) => l.replace(/\s+/g, " ").trim())
    .filter((l) => l && !l.startsWith("@ ") && !/ (refreshing|refresh|running)$/.test(l));

let steps: Step[];
beforeAll(async () => {
  sim = await createSimulator({ seed: 410 });
  steps = workflowSteps(readFileSync(join(EXAMPLE, "drift.yml"), "utf8"));
  // The key only in the environment, as the workflow gives it (no secops:apiKey in the stack config).
  const project = /^name: (\S+)$/m.exec(readFileSync(join(EXAMPLE, "Pulumi.yaml"), "utf8"))![1];
  s = await engineStack(project, join(EXAMPLE, "index.ts"), {
    SECOPS_API_KEY: sim.apiKeys.admin,
    SECOPS_BASE_URL: sim.url,
  });
  copyFileSync(join(EXAMPLE, "secops-drift-ignore.txt"), join(s.dir, "secops-drift-ignore.txt"));
  // The install step (`npm ci`): what the example's package.json installs, this package from its
  // tarball (its package.json names this checkout, which a copy names as its tarball: README step 2).
  const manifest = JSON.parse(readFileSync(join(EXAMPLE, "package.json"), "utf8")) as {
    dependencies: Record<string, string>;
  };
  expect(steps.find((step) => step.run.length)?.run).toEqual(["npm ci"]);
  installPacked(s.dir);
  installNamed(
    s.dir,
    Object.keys(manifest.dependencies).filter((d) => d !== "pulumi-secops"),
  );
});
afterAll(async () => {
  s?.remove();
  await sim?.close();
});

test("drift.yml's steps, in its order: a clean job passes; a hand-made rule fails the drift step (exit 3), the policy step passes, changes by hand fail the preview step", async () => {
  // What the workflow runs, in its order.
  expect(steps.map((step) => step.name ?? step.uses ?? step.run[0])).toEqual([
    "actions/checkout@v4",
    "actions/setup-node@v4",
    "npm ci",
    "pulumi/actions@v6",
    "secops drift",
    "actions/upload-artifact@v4",
    "secops policy",
    "pulumi/actions@v6",
  ]);
  expect(steps[4].run).toEqual([
    'pulumi stack export --stack "${{ vars.PULUMI_STACK }}" --file stack.json',
    'npm exec --no -- secops drift --state stack.json --ignore secops-drift-ignore.txt --format markdown --json-out drift.json >> "$GITHUB_STEP_SUMMARY"',
  ]);
  expect(steps[6].run).toEqual([
    "pulumi policy analyze --policy-pack node_modules/pulumi-secops/policy-pack/pulumi-analyzer-secops --file stack.json",
  ]);
  expect(steps[7].with).toMatchObject({ command: "preview", refresh: "true", "expect-no-changes": "true" });

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

  const clean = await job(steps, 1);
  expect(clean).toMatchObject({
    drift: { code: 0, out: "" },
    summary: expect.stringMatching(/^## SecOps drift report\n/),
    artifact: true,
    preview: { ok: true },
  });
  // The pack ran from the installed package (its @pulumi/policy from package.json) and passed.
  expect(clean.policy).toEqual({ code: 0, out: expect.stringMatching(/^Policies:\n +✅ pulumi-secops@v\d/) });

  const before = await rules(sim);
  const hand = await sim.control.addRule({ teamId: "team-acme", searchField: "name", search: "hand-*" });
  const { domainControllers: dc, paymentServers: pay } = up.outputs as Record<string, string>;
  await sim.control.patchRule(dc, { enabled: false });
  await sim.control.deleteRule(pay);
  const changed = await rules(sim);
  expect(changed).not.toEqual(before);
  const found = await job(steps, 2);
  expect(found.drift.code).toBe(3);
  expect(found.summary).toContain(hand.id);
  expect(found.summary).toContain(dc);
  // The whole report, for the run's artifact, beside the summary.
  const artifact = JSON.parse(readFileSync(join(s.dir, "drift.json"), "utf8")) as {
    teams: Array<{ unmanaged: Array<{ id: string }>; drifted: Array<{ id: string }> }>;
  };
  expect(artifact.teams[0].unmanaged.map((u) => u.id)).toEqual([hand.id]);
  expect(artifact.teams[0].drifted.map((d) => d.id)).toEqual([dc]);
  // Nothing the policies refuse: a disabled rule is advised on only after 30 days.
  expect(found.policy).toEqual({ code: 0, out: expect.stringMatching(/^Policies:\n +✅ pulumi-secops@v\d/) });
  expect(found.preview.ok).toBe(false);
  // The README shows this preview as the job's log does (the engine orders the steps it runs at
  // once as they end: the same lines, in either order).
  expect(planOf(found.preview.shown).sort()).toEqual(planOf(readmePreview()).sort());
  expect(planOf(readmePreview())).toContain(
    "error: no changes were expected for preview but changes were proposed",
  );
  // The job reports; it changes nothing.
  expect(await rules(sim)).toEqual(changed);
});
