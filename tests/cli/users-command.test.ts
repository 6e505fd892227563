/**
 * Issue 45 point 5: `secops users list|get|update` and `secops hva list|get|create|enable|disable`,
 * the client's operations as commands, each with `--json`: their output, their exit codes, and what
 * they changed in the simulator (or that they changed nothing).
 */
import { createSimulator, type Simulator } from "secops-sim";
import { built, run } from "../helpers/spawn";

const CLI = built("cli/secops.js");
let sim: Simulator;
let env: Record<string, string>;
beforeAll(async () => {
  sim = await createSimulator({ seed: 1 });
  env = { SECOPS_BASE_URL: sim.url, SECOPS_API_KEY: sim.apiKeys.client1Admin };
});
afterAll(() => sim.close());

const user = async (id: string) => (await sim.control.state()).users.find((u) => u.id === id)!;
const rulesOf = async (teamId: string) =>
  (await sim.control.state()).rules.filter((r) => r.teamId === teamId);

test("users list: the key's team only, as a table with a count line or as JSON", async () => {
  const team = (await sim.control.state()).users.filter((u) => u.teamId === "team-client-1");
  const table = await run(CLI, ["users", "list"], env);
  expect(table.code).toBe(0);
  const lines = table.stdout.trimEnd().split("\n");
  expect(lines[0].split(/\s+/)).toEqual([
    "ID",
    "EMAIL",
    "needsChatOpsWelcome",
    "chatOpsOnboardingUser",
    "credentialsExposed",
  ]);
  expect(lines.slice(1, -1).map((l) => l.split(/\s+/))).toEqual(
    team.map((u) => [
      u.id,
      u.email,
      String(u.needsChatOpsWelcome),
      String(u.chatOpsOnboardingUser),
      String(u.credentialsExposed),
    ]),
  );
  expect(lines.at(-1)).toBe("10 users");
  const json = await run(CLI, ["users", "list", "--json"], env);
  expect(JSON.parse(json.stdout).map((u: { id: string }) => u.id)).toEqual(team.map((u) => u.id));
});

test("users get and update: one user, only the flags given change, exit 2 with none", async () => {
  const before = await user("du-team-client-1-003");
  const get = await run(CLI, ["users", "get", "du-team-client-1-003"], env);
  const text = (u: Record<string, unknown>) =>
    `du-team-client-1-003 ${String(u.email)} (${String(u.displayName)}) in team team-client-1\n` +
    `  needsChatOpsWelcome: ${String(u.needsChatOpsWelcome)}\n` +
    `  chatOpsOnboardingUser: ${String(u.chatOpsOnboardingUser)}\n` +
    `  credentialsExposed: ${String(u.credentialsExposed)}\n`;
  expect(get).toEqual({ code: 0, stdout: text(before), stderr: "" });
  const flipped = !before.credentialsExposed;
  const update = await run(
    CLI,
    ["users", "update", "du-team-client-1-003", "--credentials-exposed", String(flipped), "--json"],
    env,
  );
  expect(update.code).toBe(0);
  const after = await user("du-team-client-1-003");
  expect(after).toEqual({ ...before, credentialsExposed: flipped, updatedAt: after.updatedAt });
  expect(JSON.parse(update.stdout)).toMatchObject({
    id: "du-team-client-1-003",
    credentialsExposed: flipped,
  });
  expect(await run(CLI, ["users", "update", "du-team-client-1-003"], env)).toEqual({
    code: 2,
    stdout: "",
    stderr:
      "secops: give at least one of --needs-chat-ops-welcome, --chat-ops-onboarding-user, --credentials-exposed\n",
  });
  expect(
    await run(CLI, ["users", "update", "du-team-client-1-003", "--credentials-exposed", "yes"], env),
  ).toMatchObject({ code: 2, stdout: "" });
  expect(await user("du-team-client-1-003")).toEqual(after);
  // Another team's user is not this key's: the API's 404, exit 1.
  expect(await run(CLI, ["users", "get", "du-team-acme-001"], env)).toMatchObject({
    code: 1,
    stdout: "",
    stderr: expect.stringMatching(
      /^secops: GET \/v1\/directory\/du-team-acme-001 failed \(404\): .* \[SECOPS_NOT_FOUND\]\n$/,
    ),
  });
});

test("hva create, list, get, disable, enable: a rule made by hand in the key's team", async () => {
  expect(await rulesOf("team-client-1")).toEqual([]);
  const made = await run(CLI, ["hva", "create", "--search", "kiosk-*"], env);
  expect(made).toMatchObject({ code: 0, stderr: "", stdout: expect.stringMatching(/^hva-\S+\n$/) });
  const id = made.stdout.trim();
  expect(await rulesOf("team-client-1")).toEqual([
    { id, teamId: "team-client-1", searchField: "name", search: "kiosk-*", enabled: true },
  ]);
  expect(await run(CLI, ["hva", "list"], env)).toEqual({
    code: 0,
    stderr: "",
    stdout: `ID${" ".repeat(id.length)}FIELD  SEARCH   ENABLED\n${id}  name   kiosk-*  true\n1 rules\n`,
  });
  expect(await run(CLI, ["hva", "disable", id], env)).toEqual({
    code: 0,
    stderr: "",
    stdout: `${id} name "kiosk-*" disabled in team team-client-1\n`,
  });
  expect((await rulesOf("team-client-1"))[0].enabled).toBe(false);
  const enabled = await run(CLI, ["hva", "enable", id, "--json"], env);
  expect(JSON.parse(enabled.stdout)).toEqual({
    id,
    teamId: "team-client-1",
    searchField: "name",
    search: "kiosk-*",
    enabled: true,
  });
  expect(JSON.parse((await run(CLI, ["hva", "get", id, "--json"], env)).stdout)).toEqual(
    JSON.parse(enabled.stdout),
  );
  expect(JSON.parse((await run(CLI, ["hva", "list", "--json"], env)).stdout)).toEqual([
    JSON.parse(enabled.stdout),
  ]);
  // A rule of another team: not this key's.
  const acme = (await rulesOf("team-acme"))[0].id;
  expect(await run(CLI, ["hva", "get", String(acme)], env)).toEqual({
    code: 1,
    stdout: "",
    stderr: `secops: GET /endpoint/hva/automation/${acme} failed (404): no rule ${acme} in the key's team [SECOPS_NOT_FOUND]\n`,
  });
  expect(await rulesOf("team-client-1")).toHaveLength(1);
});

test("integrations count --json", async () => {
  const r = await run(CLI, ["integrations", "count", "--include-disabled", "--json"], env);
  expect(r).toEqual({ code: 0, stderr: "", stdout: '{\n  "totalCount": 8\n}\n' });
});
