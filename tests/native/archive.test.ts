/**
 * The release archive (`npm run package:plugin`), as `pulumi plugin install resource secops <version>
 * --file <archive>` installs it: extracted into an empty folder, its `pulumi-resource-secops` run with
 * a PATH that has no `node`, and driven over gRPC in the engine's order against the simulator.
 */
import { spawn } from "node:child_process";
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { NativePluginProcess, secret, type ProviderProcess } from "../rig";
import { createSimulator, type Simulator } from "secops-sim";
import { VERSION } from "pulumi-secops";
import { startFakeEngine, type FakeEngine } from "../helpers/engine";
import { built, ROOT } from "../helpers/spawn";

jest.setTimeout(240_000);
const BUNDLE = built("plugin/pulumi-resource-secops.js");
const ARCHIVE = join(ROOT, "dist", "release", `pulumi-resource-secops-v${VERSION}-linux-amd64.tar.gz`);
const RULE = "urn:pulumi:dev::archive::secops:index:HvaAutomationRule::dc";
const PROVIDER = "urn:pulumi:dev::archive::pulumi:providers:secops::team";

/** Runs a command to its end; resolves with its exit code and output. */
function exec(cmd: string, args: string[], env: NodeJS.ProcessEnv = process.env) {
  return new Promise<{ code: number | null; out: string }>((resolve, reject) => {
    const child = spawn(cmd, args, { env, cwd: ROOT });
    let out = "";
    child.stdout.on("data", (c) => (out += c));
    child.stderr.on("data", (c) => (out += c));
    child.once("error", reject);
    child.once("close", (code) => resolve({ code, out }));
  });
}

let dir: string;
let noNode: string;
let sim: Simulator;
let engine: FakeEngine;
let plugin: ProviderProcess | undefined;

beforeAll(async () => {
  // The archive of this build: made here when missing or older than the bundle.
  if (!existsSync(ARCHIVE) || statSync(ARCHIVE).mtimeMs < statSync(BUNDLE).mtimeMs) {
    const made = await exec(process.execPath, [join(ROOT, "scripts", "package-plugin.js")]);
    if (made.code !== 0) throw new Error(`npm run package:plugin failed:\n${made.out}`);
  }
  dir = mkdtempSync(join(tmpdir(), "secops-archive-"));
  noNode = mkdtempSync(join(tmpdir(), "secops-nonode-"));
  const untar = await exec("tar", ["-C", dir, "-xzf", ARCHIVE]);
  expect(untar).toEqual({ code: 0, out: "" });
  sim = await createSimulator({ seed: 43 });
  engine = await startFakeEngine();
});
afterAll(async () => {
  await plugin?.close();
  await engine?.close();
  await sim?.close();
  for (const d of [dir, noNode]) if (d) rmSync(d, { recursive: true, force: true });
});

/** The environment the executable runs in: a PATH with no node on it. */
const bare = (): NodeJS.ProcessEnv => ({ PATH: noNode, SECOPS_INTENT_DIR: process.env.SECOPS_INTENT_DIR });

test("the install commands of docs/native-provider.md name this archive and this version", () => {
  // Command lines as a shell reads them: a line ending in a backslash goes on.
  const readme = readFileSync(join(ROOT, "docs", "native-provider.md"), "utf8").replace(/\\\n\s*/g, "");
  const install = /^\s*pulumi plugin install resource secops (\S+) --file (\S+)$/m.exec(readme);
  expect(install?.[1]).toBe(VERSION);
  expect(join(ROOT, install![2])).toBe(ARCHIVE);
  // The archive is made by the command the page gives just before (its own block: it needs no Pulumi CLI).
  const above = readme
    .slice(0, install!.index)
    .split("\n")
    .map((l) => l.trim());
  expect(above.filter((l) => /^(npm|pulumi) /.test(l)).pop()).toBe("npm run package:plugin");
  expect(JSON.parse(readFileSync(join(ROOT, "package.json"), "utf8")).scripts["package:plugin"]).toBe(
    "node scripts/package-plugin.js",
  );
});

test("the archive holds the executable at its root, beside LICENSE and README.md", async () => {
  expect(readdirSync(dir).sort()).toEqual(["LICENSE", "README.md", "pulumi-resource-secops"]);
  expect(statSync(join(dir, "pulumi-resource-secops")).mode & 0o111).toBe(0o111);
  // The PATH it runs with has no node: a shell finds none there.
  expect((await exec("/bin/sh", ["-c", "command -v node"], bare())).code).not.toBe(0);
  const exe = join(dir, "pulumi-resource-secops");
  expect(await exec(exe, ["--version"], bare())).toEqual({ code: 0, out: `${VERSION}\n` });
  const help = await exec(exe, ["--help"], bare());
  expect(help.code).toBe(0);
  expect(help.out).toMatch(/^usage: pulumi-resource-secops /);
});

test("with no node on the PATH it serves a create, read, invoke and delete in the engine's order", async () => {
  plugin = await NativePluginProcess.start({
    executable: join(dir, "pulumi-resource-secops"),
    engineAddress: engine.address,
    env: bare(),
    cwd: dir,
  });
  expect(await plugin.getPluginInfo()).toBe(VERSION);
  const schema = JSON.parse(await plugin.getSchema());
  expect([schema.name, schema.version]).toEqual(["secops", VERSION]);
  const checkedConfig = await plugin.checkConfig(
    PROVIDER,
    {},
    { apiKey: secret(sim.apiKeys.admin), baseUrl: sim.url },
  );
  expect(checkedConfig.failures).toEqual([]);
  await plugin.configure(checkedConfig.inputs, {});

  const before = (await sim.control.state()).rules.length;
  const checked = await plugin.check(RULE, {}, { field: "name", search: "archive-*" });
  expect(checked.failures).toEqual([]);
  const made = await plugin.create(RULE, checked.inputs);
  expect(made.properties).toEqual({ field: "name", search: "archive-*", enabled: true, teamId: "team-acme" });
  let rules = (await sim.control.state()).rules;
  expect(rules.length).toBe(before + 1);
  expect(rules.find((r) => r.id === made.id)).toMatchObject({ searchField: "name", search: "archive-*" });

  expect(await plugin.read(made.id, RULE, made.properties, checked.inputs)).toEqual({
    id: made.id,
    properties: made.properties,
    inputs: checked.inputs,
  });
  await sim.control.resetStats();
  const count = await plugin.invoke("secops:index:getIntegrationCount", { includeDisabled: true });
  expect(count.failures).toEqual([]);
  expect(count.result.totalCount).toBeGreaterThan(0);
  expect((await sim.control.stats()).requests).toEqual({ "POST /v1/integration/count": 1 });

  await plugin.delete(made.id, RULE, made.properties);
  rules = (await sim.control.state()).rules;
  expect(rules.length).toBe(before);
  expect(rules.some((r) => r.id === made.id)).toBe(false);
});
