/**
 * The plugin as the real CLI finds it: `pulumi do <token> list` with its query flags (the plugin given
 * with --package, its path), and the release archive installed with
 * `pulumi plugin install resource secops <version> --file <archive>`, then used by `pulumi do` and by
 * a program with no plugin on PATH and no `plugins:` path.
 */
import { join } from "node:path";
import { VERSION } from "pulumi-secops";
import { createSimulator, type Simulator } from "secops-sim";
import { cliEnv, exec, programDir, pulumiCli, releaseArchive } from "../helpers/pulumi-cli";
import { engineStack, type EngineStack } from "../helpers/pulumi-stack";
import { rules } from "../helpers/sim-counts";
import { ROOT, built } from "../helpers/spawn";

jest.setTimeout(300_000);
built("plugin/pulumi-resource-secops.js");
const PLUGIN = join(ROOT, "bin", "pulumi-resource-secops");
let sim: Simulator;
const stacks: EngineStack[] = [];

/** Ids `pulumi do ... list` printed (its JSON answer). */
function ids(stdout: string): string[] {
  return (JSON.parse(stdout) as Array<{ id: string }>).map((r) => r.id).sort();
}

beforeAll(async () => {
  sim = await createSimulator({ seed: 405 });
});
afterAll(async () => {
  for (const s of stacks) s.remove();
  await sim?.close();
});

// `--search` (with `--all`, and with `--enabled=false`) as the docs write it, the key from
// SECOPS_API_KEY: cli-docs.test.ts, which runs each of their lines.
test("pulumi do <token> list: --all, --enabled, --count and the provider's flags, through the List RPC", async () => {
  // A folder of its own (`pulumi do` needs no project or stack).
  const p = programDir("do");
  const env = { ...process.env, ...cliEnv(p.backend) };
  const { rules: live } = await sim.control.state();
  const acme = live.filter((r) => r.teamId === "team-acme");
  /** `pulumi do <token> list` with the plugin's path and the provider's settings as flags. */
  const doList = (token: string, args: string[], key = sim.apiKeys.admin) =>
    exec(
      join(pulumiCli().bin, "pulumi"),
      [
        "do",
        `secops:index:${token}`,
        "list",
        "--package",
        PLUGIN,
        ...args,
        "--secops:api-key",
        key,
        "--secops:base-url",
        sim.url,
      ],
      p.dir,
      env,
    );
  try {
    const all = await doList("HvaAutomationRule", ["--all"]);
    expect(all.stderr).toBe("");
    expect(ids(all.stdout)).toEqual(acme.map((r) => String(r.id)).sort());
    // The seed's disabled rules: a listing that is not empty (the docs' `--search 'dc-*'
    // --enabled=false` finds none).
    const disabled = acme.filter((r) => r.enabled === false).map((r) => String(r.id));
    expect(disabled.length).toBeGreaterThan(0);
    expect(ids((await doList("HvaAutomationRule", ["--all", "--enabled=false"])).stdout)).toEqual(
      disabled.sort(),
    );
    expect(JSON.parse((await doList("DirectoryUserSettings", ["--count", "2"])).stdout)).toHaveLength(2);
    // A key the API refuses: the call fails with its own message, never an empty list.
    const refused = await doList("HvaAutomationRule", ["--all"], "simkey_refused_0000000000000000");
    expect(refused.code).not.toBe(0);
    expect(refused.stdout + refused.stderr).toContain("401");
  } finally {
    p.remove();
  }
});

test("pulumi plugin install --file <release archive>; then pulumi do and a program find the installed plugin", async () => {
  const archive = await releaseArchive();
  const s = await engineStack("installed", join(__dirname, "programs", "teams.js"), {}, "installed");
  stacks.push(s);
  const install = await s.cli(["plugin", "install", "resource", "secops", VERSION, "--file", archive]);
  expect(install.code).toBe(0);
  // `pulumi plugin ls` then shows it: cli-docs.test.ts. Here, what finds it: pulumi do, a program.
  const listing = await s.cli([
    "do",
    "secops:index:HvaAutomationRule",
    "list",
    "--all",
    "--secops:api-key",
    sim.apiKeys.client1Admin,
    "--secops:base-url",
    sim.url,
  ]);
  expect(listing.stderr).toBe("");
  expect(JSON.parse(listing.stdout)).toEqual(expect.any(Array));

  await s.config("baseUrl", sim.url);
  await s.config("teams", JSON.stringify({ c1: { rules: ["installed-*"] } }));
  await s.config("c1ApiKey", sim.apiKeys.client1Admin, true);
  const before = await rules(sim);
  const up = await s.op("up");
  expect(up).toMatchObject({ ok: true, summary: { create: 3 } });
  expect(up.stdout).not.toContain("from $PATH");
  expect(await rules(sim)).toEqual([...before, "team-client-1 installed-* true"].sort());
  expect((await s.op("destroy")).summary).toEqual({ delete: 3 });
  expect(await rules(sim)).toEqual(before);
});
