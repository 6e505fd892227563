/**
 * examples/go-hva-rules, a Go program using the SDK that Pulumi's code generator wrote (sdk/go/, by
 * the example's replace directive) with github.com/pulumi/pulumi/sdk/v3 from the module proxy: it
 * builds (`go build`, what `pulumi up` does for `runtime: go`), and run by the real CLI against the
 * simulator its preview plans the two rules and writes nothing; up makes them and destroy removes
 * them. Pulumi's Go language host cannot be built here (tests/helpers/pulumi-langs.ts), so the
 * program runs through the Go Automation API (the example's automate/: an inline program, the Go
 * SDK's own language server); the stack and its config are the CLI's own commands.
 */
import { copyFileSync, mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { delimiter, join } from "node:path";
import { createSimulator, type Simulator } from "secops-sim";
import { cliEnv, exec, pulumiCli } from "../helpers/pulumi-cli";
import { rules, writes } from "../helpers/sim-counts";
import { ROOT, built } from "../helpers/spawn";

jest.setTimeout(600_000);
built("plugin/pulumi-resource-secops.js");
const EXAMPLE = join(ROOT, "examples", "go-hva-rules");
const TEAM = "team-acme";
let sim: Simulator;
let dir: string;
let env: NodeJS.ProcessEnv;

/** `go build -o <dir>/<name> <pkg>` in the example (its go.mod and go.sum, as committed). */
async function goBuild(name: string, pkg: string): Promise<string> {
  const out = join(dir, name);
  const r = await exec("go", ["build", "-o", out, pkg], EXAMPLE, process.env);
  if (r.code !== 0) throw new Error(`go build ${pkg} failed (Go 1.26+ on PATH?):\n${r.stderr}`);
  return out;
}

/** One Automation API operation on stack dev; its last line of output, parsed. */
async function automate(bin: string, op: string): Promise<Record<string, unknown>> {
  const r = await exec(bin, ["--dir", join(dir, "project"), op], dir, env);
  const line = r.stdout.trim().split("\n").pop() ?? "";
  try {
    return JSON.parse(line) as Record<string, unknown>;
  } catch {
    throw new Error(`automate printed no result (exit ${r.code}): ${r.stderr || r.stdout}`);
  }
}

const pulumi = (...args: string[]) =>
  exec(join(pulumiCli().bin, "pulumi"), [...args, "--non-interactive"], join(dir, "project"), env);

beforeAll(async () => {
  sim = await createSimulator({ seed: 437 });
  dir = mkdtempSync(join(tmpdir(), "secops-go-"));
  mkdirSync(join(dir, "project", ".backend"), { recursive: true });
  copyFileSync(join(EXAMPLE, "Pulumi.yaml"), join(dir, "project", "Pulumi.yaml"));
  const cli = pulumiCli();
  env = {
    ...process.env,
    ...cliEnv(join(dir, "project", ".backend")),
    PATH: [cli.bin, join(ROOT, "bin"), process.env.PATH ?? ""].join(delimiter),
  };
});
afterAll(async () => {
  rmSync(dir, { recursive: true, force: true });
  await sim?.close();
});

test("the program builds; its preview plans the two rules and writes nothing; up and destroy", async () => {
  await goBuild("go-hva-rules", ".");
  const automateBin = await goBuild("automate", "./automate");
  expect(await pulumi("stack", "init", "dev")).toMatchObject({ code: 0 });
  expect(await pulumi("config", "set", "secops:baseUrl", sim.url)).toMatchObject({ code: 0 });
  expect(await pulumi("config", "set", "--secret", "secops:apiKey", sim.apiKeys.admin)).toMatchObject({
    code: 0,
  });

  const before = await rules(sim);
  await sim.control.resetStats();
  const preview = await automate(automateBin, "preview");
  expect(preview).toMatchObject({ ok: true, changeSummary: { create: 3 } }); // stack + 2 rules
  for (const name of ["domain-controllers", "build-agents"])
    expect(preview.stdout).toMatch(new RegExp(`\\+ +secops:index:HvaAutomationRule ${name} create`));
  expect(await writes(sim)).toBe(0);
  expect(await rules(sim)).toEqual(before);

  const up = await automate(automateBin, "up");
  expect(up).toMatchObject({ ok: true, summary: { create: 3 } });
  expect(up.outputs).toMatchObject({ role: "ADMIN", team: TEAM });
  expect(await rules(sim)).toEqual([...before, `${TEAM} dc-* true`, `${TEAM} build-* false`].sort());

  const destroy = await automate(automateBin, "destroy");
  expect(destroy).toMatchObject({ ok: true, summary: { delete: 3 } });
  expect(await rules(sim)).toEqual(before);
});
