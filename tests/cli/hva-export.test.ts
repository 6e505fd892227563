/**
 * `secops hva export`: the team's rules as a `pulumi import --file` JSON or a TypeScript program, with
 * stable unique names; the native program it writes adopts every rule through the runner, writing nothing.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { SecOpsClient } from "pulumi-secops/client";
import { LifecycleRunner, linkPackage } from "pulumi-secops/testing";
import { createSimulator, type Simulator } from "pulumi-secops/simulator";
import { ruleName } from "../../provider/cli/hva-export";
import { ROOT, built, run } from "../helpers/spawn";

const CLI = built("cli/secops.js");
let sim: Simulator;
let env: Record<string, string>;
let dir: string;
let ids: string[];
beforeAll(async () => {
  sim = await createSimulator({ seed: 45 });
  env = { SECOPS_BASE_URL: sim.url, SECOPS_API_KEY: sim.apiKeys.client1Admin };
  dir = mkdtempSync(join(tmpdir(), "secops-hva-export-"));
  // The exported program imports pulumi-secops/native: installed there, as a user's program has it.
  linkPackage(dir, ROOT);
  const client = new SecOpsClient({ apiKey: sim.apiKeys.client1Admin, baseUrl: sim.url });
  ids = [];
  for (const search of ["dc-*", "DC *", "db-??", "*", "10.0.*"])
    ids.push((await client.createHvaRule({ field: "name", search })).id);
  await client.setHvaRuleEnabled(ids[2], false);
  await client.close();
});
afterAll(async () => {
  await sim.close();
  rmSync(dir, { recursive: true, force: true });
});

test("names come from the search text, unique and stable", () => {
  expect(ruleName({ searchField: "name", search: "dc-*" })).toBe("dc");
  expect(ruleName({ searchField: "hostname", search: "Web 01" })).toBe("hostname-web-01");
  expect(ruleName({ searchField: "name", search: "*" })).toBe("rule");
  expect(ruleName({ searchField: "name", search: "10.0.*" })).toBe("rule-10-0");
});

test("--format import writes a pulumi import file of the team's rules", async () => {
  const r = await run(CLI, ["hva", "export"], env);
  expect(r.stderr).toBe("");
  expect(r.code).toBe(0);
  const file = JSON.parse(r.stdout);
  const type = "secops:index:HvaAutomationRule";
  expect(file).toEqual({
    resources: [
      { type, name: "dc", id: ids[0] },
      { type, name: "dc-2", id: ids[1] },
      { type, name: "db", id: ids[2] },
      { type, name: "rule", id: ids[3] },
      { type, name: "rule-10-0", id: ids[4] },
    ],
  });
  // Stable: the same rules give the same file.
  expect((await run(CLI, ["hva", "export", "--format", "import"], env)).stdout).toBe(r.stdout);
  const bad = await run(CLI, ["hva", "export", "--format", "yaml"], env);
  expect(bad.code).toBe(2);
  expect(bad.stderr).toContain("argument 'yaml' is invalid. Allowed choices are import, typescript.");
});

test("--format typescript writes a dynamic program with adoptExisting", async () => {
  const r = await run(CLI, ["hva", "export", "--format", "typescript"], env);
  expect(r.code).toBe(0);
  expect(r.stdout).toContain('import * as secops from "pulumi-secops";');
  expect(r.stdout).toContain(
    'new secops.HvaAutomationRule("db", { field: "name", search: "db-??", enabled: false, adoptExisting: true });',
  );
});

test("--native writes a program whose first up imports every rule and writes nothing", async () => {
  const out = join(dir, "index.ts");
  const r = await run(CLI, ["hva", "export", "--format", "typescript", "--native", "--out", out], env);
  expect(r).toMatchObject({ code: 0, stderr: `wrote 5 rule(s) to ${out}\n` });
  const source = readFileSync(out, "utf8");
  expect(source).toContain('import * as secops from "pulumi-secops/native";');
  expect(source).toContain(
    `new secops.HvaAutomationRule("dc-2", { field: "name", search: "DC *", enabled: true }, { import: "${ids[1]}" });`,
  );
  writeFileSync(join(dir, "Pulumi.yaml"), "name: adopted\nruntime: nodejs\n");
  const runner = new LifecycleRunner({
    program: out,
    programDir: dir,
    statePath: join(dir, "state.json"),
    config: { "secops:apiKey": sim.apiKeys.client1Admin, "secops:baseUrl": sim.url },
  });
  try {
    await sim.control.resetStats();
    const up = await runner.up();
    expect(up.map((s) => [s.name, s.op, s.ok])).toEqual([
      ["db", "import", true],
      ["dc", "import", true],
      ["dc-2", "import", true],
      ["rule", "import", true],
      ["rule-10-0", "import", true],
    ]);
    const writes = Object.keys((await sim.control.stats()).requests).filter((k) => !k.startsWith("GET"));
    expect(writes).toEqual([]);
    expect(
      runner
        .state()
        .resources.map((r) => r.id)
        .sort(),
    ).toEqual([...ids].sort());
  } finally {
    await runner.close();
  }
});

test("--out keeps an existing file unless --force, and a missing folder is a usage error (exit 2)", async () => {
  const out = join(dir, "existing.ts");
  writeFileSync(out, "// the user's own program\n");
  const args = ["hva", "export", "--format", "typescript", "--native", "--out", out];
  expect(await run(CLI, args, env)).toMatchObject({
    code: 2,
    stdout: "",
    stderr: `secops: --out ${out}: the file exists; pass --force to replace it\n`,
  });
  expect(readFileSync(out, "utf8")).toBe("// the user's own program\n");
  expect(await run(CLI, [...args, "--force"], env)).toMatchObject({
    code: 0,
    stderr: `wrote 5 rule(s) to ${out}\n`,
  });
  expect(readFileSync(out, "utf8")).toContain('import * as secops from "pulumi-secops/native";');
  const nowhere = join(dir, "no", "such", "dir", "x.ts");
  expect(await run(CLI, ["hva", "export", "--out", nowhere], env)).toMatchObject({
    code: 2,
    stderr: `secops: --out ${nowhere}: no such folder ${join(dir, "no", "such", "dir")}\n`,
  });
});
