/**
 * Issue 56 point 6: `secops hva create` refuses a search that matches every endpoint, which the policy
 * pack's mandatory, critical `secops-search-not-everything` refuses in a program, by the pack's own test
 * of a search (`matchesEverything`). The refusal is a usage error (exit 2, before any request) naming
 * the option and the fix; `--force` makes the rule anyway. The CLI never loads @pulumi/policy (an
 * optional peer dependency) for this.
 */
import { spawnSync } from "node:child_process";
import { createSimulator, type Simulator } from "secops-sim";
import { matchesEverything } from "../../provider/policy/resource-policies";
import { built, run, ROOT } from "../helpers/spawn";

const CLI = built("cli/secops.js");
let sim: Simulator;
let env: Record<string, string>;
beforeAll(async () => {
  sim = await createSimulator({ seed: 56 });
  env = { SECOPS_BASE_URL: sim.url, SECOPS_API_KEY: sim.apiKeys.client1Admin };
});
afterAll(() => sim.close());

const rulesOfClient1 = async () =>
  (await sim.control.state()).rules.filter((r) => r.teamId === "team-client-1");
const requests = async () => Object.values((await sim.control.stats()).requests).reduce((a, n) => a + n, 0);

/** The refusal, word for word, for a search (as JSON.stringify shows it). */
const refusal = (search: string) =>
  `secops: --search ${JSON.stringify(search)} matches every endpoint, so every endpoint would become a high-value asset (the policy pack's secops-search-not-everything refuses it): give a pattern that names the assets (e.g. --search 'dc-*'), or pass --force to make it anyway\n`;

test.each(["*", "**", " * ", ""])(
  "hva create --search %j: refused (exit 2) before any request, naming --search and --force",
  async (search) => {
    // The same notion as the policy pack's: these are what it calls critical.
    expect(matchesEverything(search)).toBe(true);
    await sim.control.resetStats();
    expect(await run(CLI, ["hva", "create", "--search", search], env)).toEqual({
      code: 2,
      stdout: "",
      stderr: refusal(search),
    });
    expect(await requests()).toBe(0);
    expect(await rulesOfClient1()).toEqual([]);
  },
);

test("hva create --force makes the match-everything rule; a search that names assets needs no --force", async () => {
  const forced = await run(CLI, ["hva", "create", "--search", "*", "--force", "--json"], env);
  expect(forced).toMatchObject({ code: 0, stderr: "" });
  expect(JSON.parse(forced.stdout)).toMatchObject({ search: "*", searchField: "name", enabled: true });
  // A `*` inside a pattern names assets: no refusal.
  const named = await run(CLI, ["hva", "create", "--search", "dc-*"], env);
  expect(named).toMatchObject({ code: 0, stderr: "", stdout: expect.stringMatching(/^hva-\S+\n$/) });
  expect((await rulesOfClient1()).map((r) => r.search).sort()).toEqual(["*", "dc-*"]);
});

test("hva create --help names --force", async () => {
  const help = await run(CLI, ["hva", "create", "--help"], env);
  expect(help.stdout).toMatch(/^ {2}--force +make the rule even when its search matches every endpoint$/m);
});

test("the CLI loads no @pulumi package for the check (@pulumi/policy is an optional peer dependency)", () => {
  const loaded = spawnSync(
    process.execPath,
    [
      "-e",
      `require(${JSON.stringify(CLI)}); console.log(Object.keys(require.cache).filter((k) => k.includes("@pulumi")).join(","))`,
    ],
    { cwd: ROOT, encoding: "utf8" },
  );
  expect({ status: loaded.status, stdout: loaded.stdout, stderr: loaded.stderr }).toEqual({
    status: 0,
    stdout: "\n",
    stderr: "",
  });
});
