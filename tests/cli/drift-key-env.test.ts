/**
 * Issue 45 point 2: a refused key of `secops drift --key-env A --key-env B` is named by the variable
 * that held it (`$BAD`), as `secops whoami --api-key-env` names its own; nothing is written to
 * standard output, and the probe that finds it asks each key's identity once more, only after the
 * refusal.
 */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createSimulator, type Simulator } from "secops-sim";
import { built, run } from "../helpers/spawn";

const CLI = built("cli/secops.js");
let sim: Simulator;
let dir: string;
let state: string;
beforeAll(async () => {
  sim = await createSimulator({ seed: 45 });
  dir = mkdtempSync(join(tmpdir(), "secops-key-env-"));
  state = join(dir, "stack.json");
  writeFileSync(state, JSON.stringify({ version: 3, deployment: { resources: [] } }));
});
afterAll(async () => {
  await sim.close();
  rmSync(dir, { recursive: true, force: true });
});

const refused = (variable: string) =>
  `secops: GET /v1/auth/me failed (401): Unauthorized: the API key from $${variable} was refused; check that it is a valid team API key [SECOPS_AUTH]\n`;

test("the second key refused: its variable is named, not $SECOPS_API_KEY", async () => {
  await sim.control.resetStats();
  const r = await run(CLI, ["drift", "--state", state, "--key-env", "C1_KEY", "--key-env", "BAD"], {
    SECOPS_BASE_URL: sim.url,
    SECOPS_API_KEY: sim.apiKeys.admin,
    C1_KEY: sim.apiKeys.client1Admin,
    BAD: "simkey_revoked_0123456789abcdef",
  });
  expect(r).toEqual({ code: 1, stdout: "", stderr: refused("BAD") });
  // The report's two identity requests, then the probe's: C1_KEY answered, BAD refused again.
  expect((await sim.control.stats()).requests).toEqual({ "GET /v1/auth/me": 4 });
});

test("the first key refused, and the default variable when no --key-env is given", async () => {
  const first = await run(CLI, ["drift", "--state", state, "--key-env", "BAD", "--key-env", "C2_KEY"], {
    SECOPS_BASE_URL: sim.url,
    C2_KEY: sim.apiKeys.client2Admin,
    BAD: "simkey_revoked_0123456789abcdef",
  });
  expect(first).toEqual({ code: 1, stdout: "", stderr: refused("BAD") });
  const bare = await run(CLI, ["drift", "--state", state], {
    SECOPS_BASE_URL: sim.url,
    SECOPS_API_KEY: "simkey_revoked_0123456789abcdef",
  });
  expect(bare).toEqual({ code: 1, stdout: "", stderr: refused("SECOPS_API_KEY") });
});

test("issue 45 point 10: --api-key-env naming an unset variable says to set that variable", async () => {
  const r = await run(CLI, ["--api-key-env", "C1KEY", "whoami"], { SECOPS_BASE_URL: sim.url, C1KEY: "" });
  expect(r).toEqual({
    code: 2,
    stdout: "",
    stderr:
      "secops: no API key: environment variable C1KEY is empty or not set (set C1KEY, or name another variable with --api-key-env)\n",
  });
});
