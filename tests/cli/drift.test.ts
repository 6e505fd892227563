/**
 * `secops drift` (issue 20) against the simulator: a stack of two client teams made through the
 * offline runner and the native plugin, then changed out of band (a rule disabled, a rule deleted, a
 * user's flag flipped, rules made by hand) and given a second resource holding one rule (issue 32).
 * The report is built from deployment-v3 documents made from the runner's state as
 * `pulumi stack export` writes them (secrets shown, and encrypted), counted category by category, compared with
 * golden files, and run through the CLI for its exit codes.
 */
import { spawn } from "node:child_process";
import { copyFileSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import * as pulumi from "@pulumi/pulumi";
import * as native from "pulumi-secops/native";
import {
  driftReport,
  formatDrift,
  isClean,
  parseIgnore,
  readManaged,
  type DriftReport,
} from "pulumi-secops/drift";
import { SecOpsClient } from "pulumi-secops/client";
import { LifecycleRunner, stepsOf } from "../rig";
import { createSimulator, type Simulator } from "secops-sim";
import { ROOT, built, run } from "../helpers/spawn";
import { exported as exportedShown, toDeployment } from "./deployment";

built("cli/secops.js");
built("native/plugin/main.js");
const GOLDEN = join(ROOT, "tests", "cli", "golden");
const USER = "du-team-client-1-003";
let sim: Simulator;
let dir: string;
let runnerState: string;
let exported: string;
const ids: Record<string, string> = {};
const hand: Record<string, string> = {};

/** Two teams, each with its own provider (key) and rules; team 1 also manages a user's flags. */
function program(keys: { c1: string; c2: string }, baseUrl: string) {
  return () => {
    for (const [team, key] of Object.entries(keys)) {
      const provider = new native.Provider(team, { apiKey: pulumi.secret(key), baseUrl });
      for (const name of ["dc", "jump", "web", "db"])
        new native.HvaAutomationRule(
          `${team}-${name}`,
          { field: "name", search: pulumi.secret(`${team}-${name}-*`), enabled: name !== "jump" },
          { provider },
        );
      if (team === "c1")
        new native.DirectoryUserSettings(
          "c1-user",
          { directoryUserId: USER, credentialsExposed: false },
          { provider },
        );
    }
  };
}

beforeAll(async () => {
  sim = await createSimulator({ seed: 2020 });
  dir = mkdtempSync(join(tmpdir(), "secops-drift-"));
  runnerState = join(dir, "state.json");
  const runner = new LifecycleRunner({
    program: program({ c1: sim.apiKeys.client1Admin, c2: sim.apiKeys.client2Admin }, sim.url),
    programDir: dir,
    statePath: runnerState,
    project: "drift",
    parallel: 1,
  });
  try {
    const steps = await stepsOf(runner.up());
    expect(steps.filter((s) => !s.ok)).toEqual([]);
    for (const r of runner.state().resources) ids[r.name] = r.id;
  } finally {
    await runner.close();
  }
  // A second resource holding team 1's dc rule, as a rule adopted twice leaves a stack (issue 32).
  const saved = JSON.parse(readFileSync(runnerState, "utf8"));
  const dc = saved.resources.find((r: { name: string }) => r.name === "c1-dc");
  saved.resources.push({ ...dc, urn: dc.urn.replace(/c1-dc$/, "c1-dc-copy"), name: "c1-dc-copy" });
  writeFileSync(runnerState, JSON.stringify(saved));
  exported = join(dir, "stack.json");
  writeFileSync(exported, JSON.stringify(toDeployment(runnerState, ["search"]), null, 2));
  // Out of band: team 1's jump rule enabled by hand, its web rule deleted, its user's flag flipped,
  // and two rules made by hand; team 2 gets one hand-made rule.
  await sim.control.patchRule(ids["c1-jump"], { enabled: true });
  await sim.control.deleteRule(ids["c1-web"]);
  await sim.control.patchUser(USER, { credentialsExposed: true });
  for (const [name, key, search] of [
    ["c1-hand", sim.apiKeys.client1Admin, "hand-made-*"],
    ["c1-scanner", sim.apiKeys.client1Admin, "scanner-01"],
    ["c2-hand", sim.apiKeys.client2Admin, "c2-hand-*"],
  ]) {
    const c = new SecOpsClient({ apiKey: key, baseUrl: sim.url });
    hand[name] = (await c.createHvaRule({ field: "name", search })).id;
    await c.close();
  }
});
afterAll(async () => {
  await sim.close();
  rmSync(dir, { recursive: true, force: true });
});

const bothKeys = () => [
  { name: "C1_KEY", key: sim.apiKeys.client1Admin },
  { name: "C2_KEY", key: sim.apiKeys.client2Admin },
];
const ignore = () =>
  parseIgnore("scanner-* # the vulnerability scanner's own rule, owned by the scanner team\n");
/** Rules each client team had before the stack (the simulator's seed): unmanaged too. */
async function seeded(teamId: string): Promise<string[]> {
  const made = new Set([...Object.values(ids), ...Object.values(hand)]);
  return (await sim.control.state()).rules
    .filter((r) => r.teamId === teamId && !made.has(String(r.id)))
    .map((r) => String(r.id));
}

function counts(r: DriftReport) {
  return r.teams.map((t) => ({
    teamId: t.teamId,
    checked: t.checked,
    managed: t.managed,
    inSync: t.inSync.map((x) => x.id).sort(),
    drifted: t.drifted.map((x) => [x.id, x.fields]),
    deleted: t.deleted.map((x) => x.id),
    unmanaged: t.unmanaged.map((x) => x.id).sort(),
    duplicate: t.duplicate,
    ignored: t.ignored.map((x) => x.id),
  }));
}

const C1_PROVIDER = "urn:pulumi:dev::drift::pulumi:providers:secops::c1";
const urnOf = (name: string, type = "HvaAutomationRule") =>
  `urn:pulumi:dev::drift::secops:index:${type}::${name}`;

test("each category is counted exactly, the same from an export with secrets shown or encrypted", async () => {
  await sim.control.resetStats();
  const fromRunner = await driftReport(readManaged(exportedShown(runnerState)), {
    baseUrl: sim.url,
    keys: bothKeys(),
    ignore: ignore(),
  });
  // One list per team, one read per managed user, nothing else.
  const { requests } = await sim.control.stats();
  expect(requests).toEqual({
    "GET /v1/auth/me": 2,
    "GET /endpoint/hva/automation": 2,
    "GET /v1/directory/{id}": 1,
  });
  const fromExport = await driftReport(readManaged(exported), {
    baseUrl: sim.url,
    keys: bothKeys(),
    ignore: ignore(),
  });
  expect(fromExport).toEqual(fromRunner);
  expect(counts(fromRunner)).toEqual([
    {
      teamId: "team-client-1",
      checked: true,
      managed: 6,
      inSync: [ids["c1-db"]],
      drifted: [
        [ids["c1-jump"], { enabled: { state: false, live: true } }],
        [USER, { credentialsExposed: { state: false, live: true } }],
      ],
      deleted: [ids["c1-web"]],
      unmanaged: [hand["c1-hand"], ...(await seeded("team-client-1"))].sort(),
      duplicate: [{ id: ids["c1-dc"], urns: [urnOf("c1-dc"), urnOf("c1-dc-copy")] }],
      ignored: [hand["c1-scanner"]],
    },
    {
      teamId: "team-client-2",
      checked: true,
      managed: 4,
      inSync: ["c2-dc", "c2-jump", "c2-web", "c2-db"].map((n) => ids[n]).sort(),
      drifted: [],
      deleted: [],
      unmanaged: [hand["c2-hand"], ...(await seeded("team-client-2"))].sort(),
      duplicate: [],
      ignored: [],
    },
  ]);
  const unmanaged = fromRunner.teams[0].unmanaged.find((u) => u.id === hand["c1-hand"]);
  expect(unmanaged).toEqual({
    id: hand["c1-hand"],
    field: "name",
    search: "hand-made-*",
    enabled: true,
    // The stack's rules go through explicit providers: the line names team 1's, as `pulumi import` takes it.
    import: `pulumi import secops:index:HvaAutomationRule hand-made ${hand["c1-hand"]} --provider c1=${C1_PROVIDER}`,
  });
  expect(isClean(fromRunner)).toBe(false);
});

test("a team of the state without a key is reported as not checked, never as clean", async () => {
  const report = await driftReport(readManaged(exported), { baseUrl: sim.url, keys: bothKeys().slice(1) });
  expect(counts(report)[0]).toEqual({
    teamId: "team-client-1",
    checked: false,
    managed: 6,
    inSync: [],
    drifted: [],
    deleted: [],
    unmanaged: [],
    duplicate: [],
    ignored: [],
  });
  expect(formatDrift(report, "table")).toContain(
    "team team-client-1: NOT CHECKED: no key for this team (6 resource(s) in the state)",
  );
});

test("JSON and Markdown match the golden files (ids replaced by names)", async () => {
  const report = await driftReport(readManaged(exported), {
    baseUrl: sim.url,
    keys: bothKeys(),
    ignore: ignore(),
    state: "stack.json",
  });
  const names = new Map([...Object.entries(ids), ...Object.entries(hand)].map(([n, id]) => [id, `<${n}>`]));
  const seed = new Set([...(await seeded("team-client-1")), ...(await seeded("team-client-2"))]);
  const stable = (text: string) =>
    text.replace(/hva-[0-9a-z-]+/g, (id) => names.get(id) ?? (seed.has(id) ? "<seeded>" : id));
  for (const [format, file] of [
    ["json", "drift.json"],
    ["markdown", "drift.md"],
    ["table", "drift.txt"],
  ] as const) {
    // DRIFT_SAMPLE=<dir> keeps the real output (the README shows it).
    if (process.env.DRIFT_SAMPLE)
      writeFileSync(join(process.env.DRIFT_SAMPLE, file), formatDrift(report, format));
    const text = stable(formatDrift(report, format));
    if (process.env.UPDATE_GOLDEN) writeFileSync(join(GOLDEN, file), text);
    expect(text).toBe(readFileSync(join(GOLDEN, file), "utf8"));
  }
});

describe("the CLI", () => {
  const env = () => ({
    SECOPS_BASE_URL: sim.url,
    C1_KEY: sim.apiKeys.client1Admin,
    C2_KEY: sim.apiKeys.client2Admin,
  });
  const secops = (args: string[], extra: Record<string, string> = {}) =>
    run(join(ROOT, "dist", "cli", "secops.js"), ["drift", ...args], { ...env(), ...extra });
  const leaks = (text: string) =>
    [sim.apiKeys.client1Admin, sim.apiKeys.client2Admin]
      .flatMap((k) => [k, Buffer.from(k).toString("base64"), encodeURIComponent(k)])
      .filter((form) => text.includes(form));

  test("exit 3 on drift, with the report on stdout; no key in any output", async () => {
    const ignoreFile = join(dir, "ignore.txt");
    writeFileSync(ignoreFile, "# known rules\nscanner-* # owned by the scanner team\n");
    const res = await secops([
      "--state",
      exported,
      "--key-env",
      "C1_KEY",
      "--key-env",
      "C2_KEY",
      "--ignore",
      ignoreFile,
      "--format",
      "json",
    ]);
    expect(res.code).toBe(3);
    expect(JSON.parse(res.stdout)).toMatchObject({
      version: 1,
      teams: [{ teamId: "team-client-1" }, { teamId: "team-client-2" }],
    });
    expect(res.stderr).toBe("");
    expect(leaks(res.stdout + res.stderr)).toEqual([]);
  });

  test("exit 0 when clean: a state of team 2 alone with its hand-made rules ignored", async () => {
    const doc = JSON.parse(readFileSync(exported, "utf8"));
    doc.deployment.resources = doc.deployment.resources.filter(
      (r: { urn: string }) => !r.urn.includes("::c1"),
    );
    const state = join(dir, "team2.json");
    writeFileSync(state, JSON.stringify(doc));
    const ignoreFile = join(dir, "ignore2.txt");
    const seededIds = await seeded("team-client-2");
    writeFileSync(
      ignoreFile,
      [`c2-hand-* # made during the incident`, ...seededIds.map((id) => `${id} # predates the stack`)].join(
        "\n",
      ),
    );
    const res = await secops(["--state", state, "--key-env", "C2_KEY", "--ignore", ignoreFile]);
    expect(res.stderr).toBe("");
    expect(res.code).toBe(0);
    expect(res.stdout).toContain("clean: every managed object in sync, no unmanaged rule");
  });

  test("issue 32: a rule held by two resources is its own category, duplicate, in every format, with exit 3", async () => {
    const doc = JSON.parse(readFileSync(exported, "utf8"));
    const team2 = doc.deployment.resources.filter((r: { urn: string }) => !r.urn.includes("::c1"));
    const dc = team2.find((r: { urn: string }) => r.urn.endsWith("::c2-dc"));
    doc.deployment.resources = [...team2, { ...dc, urn: urnOf("c2-dc-copy") }];
    const state = join(dir, "team2-twice.json");
    writeFileSync(state, JSON.stringify(doc));
    const ignoreFile = join(dir, "ignore-twice.txt");
    const seededIds = await seeded("team-client-2");
    writeFileSync(
      ignoreFile,
      ["c2-hand-* # made during the incident", ...seededIds.map((id) => `${id} # predates the stack`)].join(
        "\n",
      ),
    );
    const args = ["--state", state, "--key-env", "C2_KEY", "--ignore", ignoreFile];
    const before = await sim.control.state();
    const what = `keep c2-dc: pulumi state delete '${urnOf("c2-dc-copy")}', then remove c2-dc-copy from the program (an up that drops it first deletes the object under c2-dc)`;
    const table = await secops(args);
    expect({ code: table.code, stderr: table.stderr }).toEqual({ code: 3, stderr: "" });
    const lines = table.stdout.split("\n");
    expect(lines[0]).toBe(
      `team team-client-2: 3 in sync, 0 drifted, 0 deleted, 0 unmanaged, 1 duplicate, 0 identical, ${seededIds.length + 1} ignored, 0 in other stacks`,
    );
    expect(lines.filter((l) => l.includes("duplicate  "))).toEqual([
      expect.stringMatching(
        new RegExp(
          `^  duplicate  ${ids["c2-dc"]}\\s+c2-dc, c2-dc-copy\\s+${what.replace(/[$()]/g, "\\$&")}$`,
        ),
      ),
    ]);
    expect(lines.at(-2)).toBe("drift found (exit 3): see above for what to do");
    const json = await secops([...args, "--format", "json"]);
    expect(json.code).toBe(3);
    expect(JSON.parse(json.stdout).teams[0].duplicate).toEqual([
      { id: ids["c2-dc"], urns: [urnOf("c2-dc"), urnOf("c2-dc-copy")] },
    ]);
    const markdown = await secops([...args, "--format", "markdown"]);
    expect(markdown.code).toBe(3);
    expect(markdown.stdout).toContain(
      [
        "**Held by two resources (duplicate)**",
        "",
        "| Id | Resources | What to do |",
        "|---|---|---|",
        `| \`${ids["c2-dc"]}\` | \`c2-dc\`, \`c2-dc-copy\` | ${what} |`,
      ].join("\n"),
    );
    expect(markdown.stdout).toContain(
      `| \`team-client-2\` | yes | 3 | 0 | 0 | 0 | 1 | 0 | ${seededIds.length + 1} |`,
    );
    // The report reads; it never changes the API's state.
    expect(await sim.control.state()).toEqual(before);
  });

  test("exit 2 for usage mistakes, naming what is wrong", async () => {
    const cases: Array<[string[], Record<string, string>, string]> = [
      [[], {}, "required option '--state <file>' not specified"],
      [
        ["--state", exported, "--key-env", "NOPE_KEY"],
        {},
        "--key-env NOPE_KEY: environment variable NOPE_KEY is empty or not set",
      ],
      [
        ["--state", exported, "--key-env", sim.apiKeys.client1Admin],
        {},
        "--key-env takes the name of an environment variable that holds a key, not a key",
      ],
      [["--state", join(dir, "missing.json"), "--key-env", "C1_KEY"], {}, "missing.json: no such file"],
      [
        ["--state", exported, "--key-env", "C1_KEY", "--key-env", "SAME_KEY"],
        { SAME_KEY: sim.apiKeys.client1Admin },
        "$C1_KEY and $SAME_KEY are keys of the same team (team-client-1)",
      ],
    ];
    const bad = join(dir, "bad-ignore.txt");
    writeFileSync(bad, "hva-1\n");
    cases.push([
      ["--state", exported, "--key-env", "C1_KEY", "--ignore", bad],
      {},
      `${bad}:1: hva-1 has no reason`,
    ]);
    const notJson = join(dir, "not.json");
    writeFileSync(notJson, "{");
    cases.push([["--state", notJson, "--key-env", "C1_KEY"], {}, "not.json: not JSON"]);
    for (const [args, extra, message] of cases) {
      const res = await secops(args, extra);
      expect([args.join(" "), res.code, res.stderr]).toEqual([
        args.join(" "),
        2,
        expect.stringContaining(message),
      ]);
      expect(leaks(res.stdout + res.stderr)).toEqual([]);
    }
  });

  test("exit 1 when the API refuses or cannot be reached; the key is not in the error", async () => {
    const refused = await secops(["--state", exported, "--key-env", "C1_KEY"], {
      C1_KEY: `${sim.apiKeys.client1Admin}x`,
    });
    expect(refused.code).toBe(1);
    expect(refused.stderr).toMatch(/^secops: .*\[SECOPS_AUTH\]\n$/);
    expect(leaks(refused.stdout + refused.stderr)).toEqual([]);
    const down = await secops(["--state", exported, "--key-env", "C1_KEY"], {
      SECOPS_BASE_URL: "http://127.0.0.1:9",
    });
    expect(down.code).toBe(1);
    expect(down.stderr).toMatch(/\[SECOPS_NETWORK\]/);
  });

  test("the example workflow's drift command, word for word, writes the Markdown report", async () => {
    const example = join(ROOT, "examples", "ci-drift");
    const line = readFileSync(join(example, "drift.yml"), "utf8")
      .split("\n")
      .map((l) => l.trim())
      .find((l) => l.startsWith("npm exec --no -- secops drift"))!;
    const [command, redirect] = line.split(" >> ");
    expect(redirect).toBe('"$GITHUB_STEP_SUMMARY"');
    const words = command.split(/\s+/).slice(5); // after `npm exec --no -- secops`: the package's bin
    const work = mkdtempSync(join(tmpdir(), "secops-drift-example-"));
    try {
      copyFileSync(exported, join(work, "stack.json"));
      copyFileSync(join(example, "secops-drift-ignore.txt"), join(work, "secops-drift-ignore.txt"));
      // Asynchronous: the simulator answers from this process.
      const child = spawn(process.execPath, [join(ROOT, "dist", "cli", "secops.js"), ...words], {
        cwd: work,
        env: { ...process.env, SECOPS_API_KEY: sim.apiKeys.client1Admin, SECOPS_BASE_URL: sim.url },
      });
      const res = { stdout: "", stderr: "", status: null as number | null };
      child.stdout.on("data", (c) => (res.stdout += c));
      child.stderr.on("data", (c) => (res.stderr += c));
      res.status = await new Promise<number | null>((done) => child.once("close", done));
      expect(res.stderr).toBe("");
      expect(res.status).toBe(3); // findings; team 2 has no key here, so it is not checked either
      expect(res.stdout).toMatch(/^## SecOps drift report\n/);
      expect(res.stdout).toContain("| `team-client-2` | **no key** |");
      expect(leaks(res.stdout)).toEqual([]);
    } finally {
      rmSync(work, { recursive: true, force: true });
    }
  });
});
