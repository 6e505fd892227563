/**
 * Issue 45 point 7: a big tenant in one command, `secops-sim --rules N --users N --team T` (it took
 * 4,000 `ctl add-rule` calls), and `ctl add-user`: counted per team in the simulator's state and
 * through the team's own key.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { createSimulator, SimulatorControl } from "secops-sim";
import { built, builtSim, run } from "../helpers/spawn";

const SIM = builtSim();
const CLI = built("cli/secops.js");

interface Info {
  url: string;
  controlToken: string;
  apiKeys: Record<string, string>;
}

/** Starts `secops-sim args --json` (this test's own process) and answers its connection details. */
function start(args: string[]): Promise<{ child: ChildProcess; info: Info }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [SIM, "--port", "0", "--json", ...args], {
      stdio: ["ignore", "pipe", "pipe"],
    });
    let out = "";
    let err = "";
    child.stderr!.on("data", (c) => (err += c));
    child.stdout!.on("data", (c) => {
      out += c;
      if (out.includes("\n")) resolve({ child, info: JSON.parse(out.split("\n")[0]) });
    });
    child.once("close", (code) => reject(new Error(`secops-sim exited ${code}: ${err}`)));
  });
}

const perTeam = (items: Array<Record<string, unknown>>) => {
  const n: Record<string, number> = {};
  for (const i of items) n[String(i.teamId)] = (n[String(i.teamId)] ?? 0) + 1;
  return n;
};

test("--rules 4000 --users 500 --team team-client-1: that team only, counted", async () => {
  const { child, info } = await start(["--rules", "4000", "--users", "500", "--team", "team-client-1"]);
  try {
    const control = new SimulatorControl(info.url, info.controlToken);
    const state = await control.state();
    expect(perTeam(state.rules)).toEqual({ "team-acme": 3, "team-client-1": 4000 });
    expect(perTeam(state.users)).toEqual({
      "team-acme": 60,
      "team-msp": 5,
      "team-client-1": 510,
      "team-client-2": 10,
    });
    const rules = state.rules.filter((r) => r.teamId === "team-client-1");
    expect(rules.slice(0, 2).map((r) => [r.search, r.enabled])).toEqual([
      ["bulk-1-*", true],
      ["bulk-2-*", true],
    ]);
    expect(rules.filter((r) => !r.enabled)).toHaveLength(800);
    const env = { SECOPS_BASE_URL: info.url, SECOPS_API_KEY: info.apiKeys.client1Admin };
    const listed = await run(CLI, ["hva", "list"], env);
    expect(listed.stdout.trimEnd().split("\n").at(-1)).toBe("4000 rules");
    const users = await run(CLI, ["users", "list"], env);
    expect(users.stdout.trimEnd().split("\n").at(-1)).toBe("510 users");
    expect(users.stdout).toContain("du-team-client-1-510 ");
  } finally {
    child.kill("SIGTERM");
  }
});

test("an unknown --team is a usage error naming the teams", async () => {
  expect(await run(SIM, ["--rules", "3", "--team", "team-nope"])).toMatchObject({
    code: 2,
    stdout: "",
    stderr: expect.stringContaining(
      "option '--team <team>' argument 'team-nope' is invalid. --team must be one of team-acme, team-msp, team-client-1, team-client-2",
    ),
  });
});

test("ctl add-user adds a user with the next free id, seen by the team's key", async () => {
  const sim = await createSimulator({ seed: 5 });
  try {
    const env = { SECOPS_BASE_URL: sim.url, SECOPS_SIM_TOKEN: sim.controlToken };
    const before = perTeam((await sim.control.state()).users);
    expect(
      await run(
        SIM,
        [
          "ctl",
          "add-user",
          "--team",
          "team-client-2",
          "--email",
          "kim@client-2.example",
          "--name",
          "Kim Lee",
        ],
        env,
      ),
    ).toEqual({ code: 0, stdout: "du-team-client-2-011\n", stderr: "" });
    expect(await run(SIM, ["ctl", "add-user", "--team", "team-client-2"], env)).toEqual({
      code: 0,
      stdout: "du-team-client-2-012\n",
      stderr: "",
    });
    expect(perTeam((await sim.control.state()).users)).toEqual({
      ...before,
      "team-client-2": before["team-client-2"] + 2,
    });
    const got = await run(CLI, ["users", "get", "du-team-client-2-011", "--json"], {
      SECOPS_BASE_URL: sim.url,
      SECOPS_API_KEY: sim.apiKeys.client2Admin,
    });
    expect(JSON.parse(got.stdout)).toMatchObject({
      id: "du-team-client-2-011",
      teamId: "team-client-2",
      email: "kim@client-2.example",
      allEmails: ["kim@client-2.example"],
      displayName: "Kim Lee",
    });
    expect(await run(SIM, ["ctl", "add-user", "--team", "team-nope"], env)).toEqual({
      code: 1,
      stdout: "",
      stderr:
        "secops-sim: simulator control POST /directory failed (400): teamId must be one of team-acme, team-msp, team-client-1, team-client-2\n",
    });
    expect(perTeam((await sim.control.state()).users)["team-client-2"]).toBe(before["team-client-2"] + 2);
  } finally {
    await sim.close();
  }
});
