/**
 * `secops-sim ctl` against a running simulator (issue 23 point 5): list the seeded rules and directory
 * users, change and delete them out of band, set and clear faults, read statistics; exit 2 for usage
 * errors, 1 when the simulator refuses.
 */
import { createSimulator, type Simulator } from "secops-sim";
import { builtSim, run } from "../helpers/spawn";

const SIM = builtSim();
let sim: Simulator;
let env: Record<string, string>;
beforeAll(async () => {
  sim = await createSimulator({ seed: 29 });
  env = { SECOPS_BASE_URL: sim.url, SECOPS_SIM_TOKEN: sim.controlToken };
});
afterAll(() => sim.close());

const ctl = (args: string[], extra: Record<string, string> = {}) =>
  run(SIM, ["ctl", ...args], { ...env, ...extra });

test("rules and users list what the simulator holds, as columns or JSON", async () => {
  const state = await sim.control.state();
  const rules = await ctl(["rules"]);
  expect(rules.code).toBe(0);
  const lines = rules.stdout.trimEnd().split("\n");
  expect(lines[0].split(/\s+/)).toEqual(["id", "teamId", "searchField", "search", "enabled"]);
  expect(lines.slice(1).map((l) => l.split(/\s+/)[0])).toEqual(state.rules.map((r) => r.id));
  expect(JSON.parse((await ctl(["users", "--json"])).stdout)).toEqual(state.users);
  const users = (await ctl(["users"])).stdout;
  expect(users).toContain("du-team-acme-005");
});

test("set-rule, set-user, delete-rule and delete-user change the simulator out of band", async () => {
  const [rule, other] = (await sim.control.state()).rules;
  const changed = await ctl(["set-rule", String(rule.id), "--enabled", "false", "--search", "by-hand-*"]);
  expect(changed.code).toBe(0);
  expect(JSON.parse(changed.stdout)).toMatchObject({ id: rule.id, enabled: false, search: "by-hand-*" });
  expect((await sim.control.state()).rules.find((r) => r.id === rule.id)).toMatchObject({
    enabled: false,
    search: "by-hand-*",
  });
  const user = (await sim.control.state()).users.find((u) => u.id === "du-team-acme-005")!;
  const flag = !user.credentialsExposed;
  expect((await ctl(["set-user", "du-team-acme-005", "--credentials-exposed", String(flag)])).code).toBe(0);
  expect((await sim.control.state()).users.find((u) => u.id === "du-team-acme-005")?.credentialsExposed).toBe(
    flag,
  );
  // Issue 45 point 10: a delete says what it deleted (it printed `{}`).
  expect(await ctl(["delete-rule", String(other.id)])).toMatchObject({
    code: 0,
    stdout: `deleted rule ${String(other.id)} (name "${String(other.search)}") of team team-acme\n`,
  });
  expect((await sim.control.state()).rules.some((r) => r.id === other.id)).toBe(false);
  expect(await ctl(["delete-user", "du-team-acme-005"])).toMatchObject({
    code: 0,
    stdout: `deleted user du-team-acme-005 (${String(user.email)}) of team team-acme\n`,
  });
  expect((await sim.control.state()).users.some((u) => u.id === "du-team-acme-005")).toBe(false);
});

/** How many rules each team has (the API's state, every team). */
async function rulesPerTeam(): Promise<Record<string, number>> {
  const counts: Record<string, number> = {};
  for (const r of (await sim.control.state()).rules)
    counts[String(r.teamId)] = (counts[String(r.teamId)] ?? 0) + 1;
  return counts;
}

test("issue 32.5: add-rule makes a rule by hand in a team and prints its id alone", async () => {
  const before = await rulesPerTeam();
  const made = await ctl(["add-rule", "--team", "team-client-1", "--field", "name", "--search", "by-hand-*"]);
  expect({ code: made.code, stderr: made.stderr }).toEqual({ code: 0, stderr: "" });
  expect(made.stdout).toMatch(/^hva-[0-9a-z-]+\n$/);
  const id = made.stdout.trim();
  const off = await ctl([
    "add-rule",
    "--team",
    "team-client-2",
    "--field",
    "hostname",
    "--search",
    "web 01",
    "--disabled",
  ]);
  expect(off.code).toBe(0);
  const rules = (await sim.control.state()).rules;
  expect(rules.find((r) => r.id === id)).toEqual({
    id,
    teamId: "team-client-1",
    searchField: "name",
    search: "by-hand-*",
    enabled: true,
  });
  expect(rules.find((r) => r.id === off.stdout.trim())).toMatchObject({
    teamId: "team-client-2",
    searchField: "hostname",
    search: "web 01",
    enabled: false,
  });
  // The team's own key sees it, as a rule made in the product's console.
  const res = await fetch(`${sim.url}/endpoint/hva/automation`, {
    headers: { authorization: `Bearer ${sim.apiKeys.client1Admin}` },
  });
  expect(JSON.stringify(await res.json())).toContain(id);
  expect(await rulesPerTeam()).toEqual({
    ...before,
    "team-client-1": (before["team-client-1"] ?? 0) + 1,
    "team-client-2": (before["team-client-2"] ?? 0) + 1,
  });
});

test("issue 32.5: add-rule refuses an unknown team (exit 1) and a missing option (exit 2), making nothing", async () => {
  const before = await rulesPerTeam();
  expect(await ctl(["add-rule", "--team", "team-nope", "--field", "name", "--search", "x-*"])).toEqual(
    expect.objectContaining({
      code: 1,
      stdout: "",
      stderr:
        "secops-sim: simulator control POST /hva failed (400): teamId must be one of team-acme, team-msp, team-client-1, team-client-2\n",
    }),
  );
  expect(await ctl(["add-rule", "--team", "team-acme", "--field", "name"])).toEqual(
    expect.objectContaining({
      code: 2,
      stdout: "",
      stderr: expect.stringContaining("required option '--search <text>' not specified"),
    }),
  );
  expect(await rulesPerTeam()).toEqual(before);
});

test("issue 32.5: set-user prints one summary line, --json the whole user", async () => {
  const line = await ctl(["set-user", "du-team-acme-010", "--credentials-exposed", "true"]);
  const user = (await sim.control.state()).users.find((u) => u.id === "du-team-acme-010")!;
  expect(line).toMatchObject({
    code: 0,
    stderr: "",
    stdout: `du-team-acme-010 ${String(user.email)}: needsChatOpsWelcome=${String(user.needsChatOpsWelcome)} chatOpsOnboardingUser=${String(user.chatOpsOnboardingUser)} credentialsExposed=true\n`,
  });
  const json = await ctl(["set-user", "du-team-acme-010", "--credentials-exposed", "false", "--json"]);
  expect(JSON.parse(json.stdout)).toEqual({ ...user, credentialsExposed: false });
});

test("faults and stats: set, list and clear faults; read and reset statistics", async () => {
  const set = await ctl(["faults", "429:0.5@PUT /endpoint"]);
  expect(set.code).toBe(0);
  expect(JSON.parse(set.stdout)).toEqual([
    expect.objectContaining({ kind: "429", rate: 0.5, method: "PUT" }),
  ]);
  expect(JSON.parse((await ctl(["faults"])).stdout)).toEqual(JSON.parse(set.stdout));
  expect(JSON.parse((await ctl(["faults", "--clear"])).stdout)).toEqual([]);
  const stats = await ctl(["stats", "--reset"]);
  expect(JSON.parse(stats.stdout)).toMatchObject({
    requests: expect.any(Object),
    writes: expect.any(Number),
  });
  expect((await sim.control.stats()).requests).toEqual({});
});

test("usage errors exit 2 naming what is missing; a refusal of the simulator exits 1", async () => {
  const noToken = await ctl(["rules"], { SECOPS_SIM_TOKEN: "" });
  expect(noToken).toMatchObject({
    code: 2,
    stderr: "secops-sim: no control token: pass --token <token> or set SECOPS_SIM_TOKEN\n",
  });
  expect((await ctl(["set-rule", "x"])).code).toBe(2);
  expect((await ctl(["set-rule", "x", "--enabled", "maybe"])).code).toBe(2);
  const wrongToken = await ctl(["rules", "--token", "not-the-token"]);
  expect(wrongToken.code).toBe(1);
  expect(wrongToken.stderr).not.toContain(sim.controlToken);
  const unknown = await ctl(["delete-rule", "hva-does-not-exist"]);
  expect(unknown.code).toBe(1);
  expect(unknown.stderr).toBe(
    "secops-sim: simulator control DELETE /hva/hva-does-not-exist failed (404): rule hva-does-not-exist not found\n",
  );
});

test("docs/simulator-and-cli.md lists every ctl command and every control route", async () => {
  const page = require("node:fs").readFileSync(
    require("node:path").join(__dirname, "..", "..", "docs", "simulator-and-cli.md"),
    "utf8",
  ) as string;
  const help = (await run(SIM, ["ctl", "--help"])).stdout;
  const commands = [...help.split("Commands:")[1].matchAll(/^ {2}([a-z-]+) /gm)]
    .map((m) => m[1])
    .filter((c) => c !== "help");
  expect(commands.sort()).toEqual([
    "add-rule",
    "add-user",
    "delete-rule",
    "delete-user",
    "faults",
    "rules",
    "set-rule",
    "set-user",
    "stats",
    "users",
  ]);
  for (const c of commands)
    expect({ c, listed: page.includes(`secops-sim ctl ${c}`) }).toEqual({ c, listed: true });
  for (const route of [
    "GET /__sim/stats",
    "POST /__sim/stats/reset",
    "PUT /__sim/faults",
    "GET /__sim/state",
    "POST /__sim/hva",
    "PATCH /__sim/hva/{id}",
    "DELETE /__sim/directory/{id}",
  ])
    expect({ route, listed: page.includes(route) }).toEqual({ route, listed: true });
});
