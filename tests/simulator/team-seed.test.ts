/**
 * Issue 45 point 6: every team of the simulator has cases in the seed, with the ids
 * docs/simulator-and-cli.md lists: each team's key lists its own cases' indicators and exports its
 * own cases (and no other team's), through the CLI.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { parse } from "csv-parse/sync";
import { createSimulator, type Simulator } from "secops-sim";
import { ROOT, built, run } from "../helpers/spawn";

const CLI = built("cli/secops.js");
let sim: Simulator;
beforeAll(async () => {
  sim = await createSimulator({ seed: 7 });
});
afterAll(() => sim.close());

const TEAMS = [
  { key: "admin", cases: Array.from({ length: 12 }, (_, i) => `case-${String(i + 1).padStart(3, "0")}`) },
  { key: "serviceProviderAdmin", cases: ["case-msp-001", "case-msp-002", "case-msp-003"] },
  { key: "client1Admin", cases: [1, 2, 3, 4].map((i) => `case-client-1-00${i}`) },
  { key: "client2Admin", cases: [1, 2, 3, 4].map((i) => `case-client-2-00${i}`) },
] as const;

test.each(TEAMS)(
  "$key: exports its own cases and lists their indicators (3n for case n)",
  async ({ key, cases }) => {
    const env = { SECOPS_BASE_URL: sim.url, SECOPS_API_KEY: sim.apiKeys[key] };
    const csv = await run(CLI, ["cases", "export"], env);
    expect(csv.code).toBe(0);
    const rows = parse(csv.stdout, { columns: true }) as Array<Record<string, string>>;
    expect(rows.map((r) => r.id)).toEqual(cases);
    expect(rows.map((r) => r.detectionCount)).toEqual(cases.map((_, i) => String(3 * (i + 1))));
    const last = cases.at(-1)!;
    const indicators = await run(CLI, ["cases", "indicators", last, "--json"], env);
    expect(JSON.parse(indicators.stdout).totalCount).toBe(3 * cases.length);
    // Another team's case is not found with this key.
    const other = key === "admin" ? "case-client-1-001" : "case-001";
    expect(await run(CLI, ["cases", "indicators", other], env)).toEqual({
      code: 1,
      stdout: "",
      stderr: `secops: GET /v1/cases/${other}/threat-indicators failed (404): Case ${other} not found [SECOPS_NOT_FOUND]\n`,
    });
  },
);

test("the docs list these ids", () => {
  const page = readFileSync(join(ROOT, "docs", "simulator-and-cli.md"), "utf8");
  for (const ids of [
    "`case-001` to `case-012`",
    "`case-msp-001` to `case-msp-003`",
    "`case-client-1-001` to `-004`",
    "`case-client-2-001` to `-004`",
  ])
    expect(page).toContain(ids);
});
