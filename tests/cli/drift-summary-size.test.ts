/**
 * Issue 45 point 4: the Markdown drift report of a big tenant (5,200 rules made by hand) fits
 * GitHub's 1 MiB job summary by default: whole counts per team and category, the first rows of each
 * table, how many more there are and where (`--json-out`, the whole report, written by the same run).
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createSimulator, type Simulator } from "secops-sim";
import { built, run } from "../helpers/spawn";

const CLI = built("cli/secops.js");
const MIB = 1024 * 1024;
let sim: Simulator;
let dir: string;
let env: Record<string, string>;
beforeAll(async () => {
  sim = await createSimulator({ seed: 2, rules: 5200, team: "team-client-1" });
  dir = mkdtempSync(join(tmpdir(), "secops-drift-size-"));
  writeFileSync(join(dir, "stack.json"), JSON.stringify({ version: 3, deployment: { resources: [] } }));
  env = { SECOPS_BASE_URL: sim.url, C1_KEY: sim.apiKeys.client1Admin };
});
afterAll(async () => {
  await sim.close();
  rmSync(dir, { recursive: true, force: true });
});

const drift = (extra: string[]) =>
  run(
    CLI,
    ["drift", "--state", join(dir, "stack.json"), "--key-env", "C1_KEY", "--format", "markdown", ...extra],
    env,
  );

test("by default: under 1 MiB, whole counts, 100 rows, the rest named in the JSON file", async () => {
  const json = join(dir, "drift.json");
  await sim.control.resetStats();
  const r = await drift(["--json-out", json]);
  expect(r.code).toBe(3);
  expect(Buffer.byteLength(r.stdout)).toBeLessThan(MIB);
  expect(r.stdout).toContain("| `team-client-1` | yes | 0 | 0 | 0 | 5200 | 0 | 0 | 0 |");
  const rows = r.stdout.split("\n").filter((l) => /^\| `hva-/.test(l));
  expect(rows).toHaveLength(100);
  expect(r.stdout).toContain(`_5100 more of 5200 not shown: every one is in \`${json}\`._`);
  const whole = JSON.parse(readFileSync(json, "utf8"));
  expect(whole.teams[0].unmanaged).toHaveLength(5200);
  expect(rows.map((l) => l.split("`")[1])).toEqual(
    whole.teams[0].unmanaged.slice(0, 100).map((u: { id: string }) => u.id),
  );
  // One run, one read of the API for both files.
  expect((await sim.control.stats()).requests).toEqual({
    "GET /v1/auth/me": 1,
    "GET /endpoint/hva/automation": 1,
  });
});

test("asking for every row still stays under the limit (rows halved); --max-rows 0 keeps the counts", async () => {
  // 12,000 rules: every row would make about 2 MB.
  const big = await createSimulator({ seed: 2, rules: 12_000, team: "team-client-2" });
  try {
    const all = await run(
      CLI,
      ["drift", "--state", join(dir, "stack.json"), "--format", "markdown", "--max-rows", "100000"],
      { SECOPS_BASE_URL: big.url, SECOPS_API_KEY: big.apiKeys.client2Admin },
    );
    expect(all.code).toBe(3);
    expect(Buffer.byteLength(all.stdout)).toBeLessThanOrEqual(1_000_000);
    const shown = all.stdout.split("\n").filter((l) => /^\| `hva-/.test(l)).length;
    expect(shown).toBeGreaterThan(100);
    expect(shown).toBeLessThan(12_000);
    expect(all.stdout).toContain(
      `_${12_000 - shown} more of 12000 not shown: every one is in the JSON report (\`secops drift --format json\`, or \`--json-out <file>\` beside this one)._`,
    );
  } finally {
    await big.close();
  }
  const none = await drift(["--max-rows", "0"]);
  expect(none.stdout).toContain("| `team-client-1` | yes | 0 | 0 | 0 | 5200 | 0 | 0 | 0 |");
  expect(none.stdout.split("\n").filter((l) => /^\| `hva-/.test(l))).toEqual([]);
  expect(await drift(["--max-rows", "-1"])).toMatchObject({
    code: 2,
    stdout: "",
    stderr: expect.stringContaining("--max-rows must be a non-negative integer"),
  });
});

test("a --json-out into a missing folder is refused before any request (exit 2)", async () => {
  await sim.control.resetStats();
  const target = join(dir, "nowhere", "drift.json");
  expect(await drift(["--json-out", target])).toEqual({
    code: 2,
    stdout: "",
    stderr: `secops: --json-out ${target}: no such folder ${join(dir, "nowhere")}\n`,
  });
  expect((await sim.control.stats()).requests).toEqual({});
});
