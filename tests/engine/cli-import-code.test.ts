/**
 * Issue 53 cases 5 and 7, through the real Pulumi CLI (tests/helpers/pulumi-cli.ts) and the
 * simulator, counting the team's rules after every step:
 * - `pulumi import`, as the drift report prints the line, in a `runtime: nodejs` project prints
 *   TypeScript whose module is the native SDK (`pulumi-secops/native`, the schema's
 *   `language.nodejs.packageName`); that code, pasted as the program, previews with no change and
 *   no write. The code comes from Pulumi's own generator (pkg/v3/codegen/nodejs at the CLI's
 *   release), served as the Node.js language host serves it (./nodejs-codegen: the host itself
 *   cannot be built here, docs/engine.md); the program then runs through the Automation API.
 * - The `import` resource option with declared inputs that differ from the rule: `enabled` imports
 *   the rule and then updates it in the same `up`; `search` imports it and then fails on the replace,
 *   leaving the rule in the state (an up that drops the resource then deletes the rule). What
 *   docs/native-provider.md says of both is what this test sees.
 */
import { execFile } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { delimiter, join } from "node:path";
import { SecOpsClient } from "pulumi-secops/client";
import type { DriftReport } from "pulumi-secops/drift";
import { createSimulator, type Simulator } from "secops-sim";
import { pulumiCli } from "../helpers/pulumi-cli";
import { engineStack, type EngineStack } from "../helpers/pulumi-stack";
import { rules, writes } from "../helpers/sim-counts";
import { ROOT, built, run } from "../helpers/spawn";

jest.setTimeout(900_000);
built("plugin/pulumi-resource-secops.js");
const SECOPS = built("cli/secops.js");
const TEAM = "team-acme";
const R = "secops:index:HvaAutomationRule";
let sim: Simulator;
let api: SecOpsClient;
let work: string;
let s: EngineStack;

/** Builds ./nodejs-codegen (Go modules of the CLI's release, see its go.mod) as pulumi-language-nodejs. */
const buildCodegenHost = (out: string) =>
  new Promise<void>((resolve, reject) =>
    execFile(
      "go",
      ["-C", join(__dirname, "nodejs-codegen"), "build", "-o", join(out, "pulumi-language-nodejs"), "."],
      { env: { ...process.env, GOFLAGS: "-mod=mod" }, timeout: 900_000, maxBuffer: 16 * 1024 * 1024 },
      (err, _stdout, stderr) =>
        err
          ? reject(new Error(`building tests/engine/nodejs-codegen needs Go 1.26+: ${stderr || err.message}`))
          : resolve(),
    ),
  );

beforeAll(async () => {
  sim = await createSimulator({ seed: 553 });
  api = new SecOpsClient({ apiKey: sim.apiKeys.admin, baseUrl: sim.url });
  work = mkdtempSync(join(tmpdir(), "secops-import-code-"));
  await buildCodegenHost(work);
  // The stack's Pulumi.yaml says `runtime: nodejs`: `pulumi import` starts the host found on PATH.
  const path = [work, pulumiCli().bin, join(ROOT, "bin"), process.env.PATH ?? ""].join(delimiter);
  const start = join(work, "index.ts");
  writeFileSync(start, 'import * as secops from "pulumi-secops/native";\nvoid secops;\n');
  s = await engineStack("import-code", start, { PATH: path });
  await s.config("secops:apiKey", sim.apiKeys.admin, true);
  await s.config("secops:baseUrl", sim.url);
});
afterAll(async () => {
  s?.remove();
  await api?.close();
  await sim?.close();
  if (work) rmSync(work, { recursive: true, force: true });
});

/** A rule made by hand (no resource holds it), disabled when asked. */
async function byHand(search: string, enabled = true): Promise<string> {
  const { id } = await api.createHvaRule({ field: "name", search });
  if (!enabled) await api.setHvaRuleEnabled(id, false);
  return id;
}

/** The code `pulumi import` printed: everything after its notes. */
const printedCode = (stdout: string) => stdout.slice(stdout.indexOf("import * as pulumi"));

let imported = "";

test("case 5: the drift report's pulumi import line prints code for pulumi-secops/native, which previews with no change", async () => {
  const id = await byHand("imp-dc-*", false);
  expect((await s.op("up")).ok).toBe(true);
  const stackFile = join(work, "stack.json");
  expect((await s.pulumi(["stack", "export", "--file", stackFile])).code).toBe(0);
  const drift = await run(SECOPS, ["drift", "--state", stackFile, "--format", "json"], {
    SECOPS_API_KEY: sim.apiKeys.admin,
    SECOPS_BASE_URL: sim.url,
  });
  const report = JSON.parse(drift.stdout) as DriftReport;
  const line = report.teams.find((t) => t.teamId === TEAM)!.unmanaged.find((u) => u.id === id)!.import;
  expect(line).toBe(`pulumi import ${R} imp-dc ${id}`);

  const before = await rules(sim);
  await sim.control.resetStats();
  const imp = await s.pulumi([...line.split(" ").slice(1), "--yes"]);
  expect(imp.code).toBe(0);
  imported = printedCode(imp.stdout);
  expect(imported.trimEnd()).toBe(
    [
      'import * as pulumi from "@pulumi/pulumi";',
      'import * as secops from "pulumi-secops/native";',
      "",
      'const imp_dc = new secops.HvaAutomationRule("imp-dc", {',
      "    enabled: false,",
      '    field: "name",',
      '    search: "imp-dc-*",',
      "}, {",
      "    protect: true,",
      "});",
    ].join("\n"),
  );
  expect(await writes(sim)).toBe(0);

  // Pasted into the program as printed: the engine plans nothing and the API sees no write.
  writeFileSync(s.program, imported);
  const preview = await s.op("preview");
  expect({ ok: preview.ok, changes: preview.changeSummary }).toEqual({ ok: true, changes: { same: 2 } });
  expect(await writes(sim)).toBe(0);
  expect(await rules(sim)).toEqual(before);
});

test("case 7: the import option with inputs that differ: enabled is imported then updated; search is imported, then the replace fails and the rule stays in the state", async () => {
  // enabled differs: one up imports the rule and then writes the declared value to it.
  const web = await byHand("imp-web-*", false);
  const withWeb = `${imported}\nnew secops.HvaAutomationRule("web", { field: "name", search: "imp-web-*", enabled: true }, { import: ${JSON.stringify(web)} });\n`;
  writeFileSync(s.program, withWeb);
  const before = await rules(sim);
  await sim.control.resetStats();
  const preview = await s.op("preview");
  expect(preview.changeSummary).toEqual({ import: 1, update: 1, same: 2 });
  expect(preview.stdout).toMatch(/~ +secops:index:HvaAutomationRule web update \[diff: ~enabled\]/);
  expect(await writes(sim)).toBe(0);
  const up = await s.op("up");
  expect({ ok: up.ok, summary: up.summary }).toEqual({
    ok: true,
    summary: { import: 1, update: 1, same: 2 },
  });
  expect(await writes(sim)).toBe(1);
  const enabled = before.map((r) => (r === `${TEAM} imp-web-* false` ? `${TEAM} imp-web-* true` : r));
  expect(await rules(sim)).toEqual(enabled);

  // search differs: the up imports the rule, then refuses to replace an imported resource.
  const db = await byHand("imp-db-*");
  const withDb = `${withWeb}new secops.HvaAutomationRule("db", { field: "name", search: "imp-db-other-*" }, { import: ${JSON.stringify(db)} });\n`;
  writeFileSync(s.program, withDb);
  const made = await rules(sim);
  await sim.control.resetStats();
  const planned = await s.op("preview");
  expect(planned.changeSummary).toEqual({ import: 1, replace: 1, same: 3 });
  const refusal =
    "previously-imported resources that still specify an ID may not be replaced; please remove the `import` declaration from your program;";
  expect(planned.stdout).toContain(`warning: ${refusal}`);
  const failed = await s.op("up");
  expect(failed.ok).toBe(false);
  expect(failed.message).toContain(`error: ${refusal}`);
  expect(failed.message).toContain("= 1 imported");
  expect(await writes(sim)).toBe(0);
  expect(await rules(sim)).toEqual(made);
  // The rule is in the state now, held by `db`: an up without it would delete the hand-made rule.
  const state = JSON.parse((await s.pulumi(["stack", "export"])).stdout) as {
    deployment: { resources: Array<{ urn: string; id?: string }> };
  };
  const held = state.deployment.resources.find((r) => r.urn.endsWith(`::${R}::db`));
  expect(held?.id).toBe(db);
  writeFileSync(s.program, withWeb);
  const dropped = await s.op("preview");
  expect(dropped.changeSummary).toEqual({ delete: 1, same: 3 });
  expect(await writes(sim)).toBe(0);

  // The way out: take it out of the state (the rule stays), then import it as it is.
  expect((await s.pulumi(["state", "delete", held!.urn, "--yes"])).code).toBe(0);
  writeFileSync(
    s.program,
    `${withWeb}new secops.HvaAutomationRule("db", { field: "name", search: "imp-db-*" }, { import: ${JSON.stringify(db)} });\n`,
  );
  const aligned = await s.op("preview");
  expect(aligned.changeSummary).toEqual({ import: 1, same: 3 });
  expect((await s.op("up")).ok).toBe(true);
  expect(await writes(sim)).toBe(0);
  expect(await rules(sim)).toEqual(made);
});
