/**
 * The package as a user gets it: `npm pack`, install the tarball into a temporary Pulumi program,
 * run that program under mocks and through Pulumi's host from its own directory.
 */
import { execFileSync } from "node:child_process";
import { mkdtempSync, realpathSync, rmSync, symlinkSync, writeFileSync, mkdirSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ROOT, built, run } from "../helpers/spawn";

let work: string;
beforeAll(() => {
  built("index.js");
  work = mkdtempSync(join(tmpdir(), "secops-consumer-"));
});
afterAll(() => rmSync(work, { recursive: true, force: true }));

const npm = (args: string[], cwd: string) =>
  execFileSync("npm", args, {
    cwd,
    encoding: "utf8",
    stdio: ["ignore", "pipe", "pipe"],
    env: { ...process.env, npm_config_update_notifier: "false" },
  });

test("the packed tarball installs, serializes a thin provider and runs through the host by name", async () => {
  const packed = JSON.parse(npm(["pack", "--json", "--pack-destination", work], ROOT))[0];
  const files: string[] = packed.files.map((f: { path: string }) => f.path);
  expect(files).toContain("dist/resources/hva-automation-rule.js");
  expect(files.some((f) => f.startsWith("provider/") || f.startsWith("tests/"))).toBe(false);

  const program = join(work, "program");
  mkdirSync(program);
  writeFileSync(join(program, "Pulumi.yaml"), "name: consumer\nruntime: nodejs\n");
  writeFileSync(
    join(program, "package.json"),
    JSON.stringify({
      name: "consumer",
      private: true,
      dependencies: { "pulumi-secops": `file:${join(work, packed.filename)}` },
    }),
  );
  npm(["install", "--no-audit", "--no-fund", "--prefer-offline", "--legacy-peer-deps"], program);
  // The user's own @pulumi/pulumi (the peer dependency): the one this repository pins.
  mkdirSync(join(program, "node_modules", "@pulumi"), { recursive: true });
  symlinkSync(
    join(ROOT, "node_modules", "@pulumi", "pulumi"),
    join(program, "node_modules", "@pulumi", "pulumi"),
    "dir",
  );

  writeFileSync(
    join(program, "index.js"),
    `const { HvaAutomationRule } = require("pulumi-secops");
new HvaAutomationRule("consumer-rule", { field: "name", search: "consumer-*", enabled: false });
`,
  );
  writeFileSync(
    join(program, "run.js"),
    `const { createSimulator } = require("pulumi-secops/simulator");
const { LifecycleRunner, declaredResources } = require("pulumi-secops/testing");
(async () => {
  const sim = await createSimulator({ seed: 61 });
  const declared = await declaredResources(require.resolve("./index.js"));
  const runner = new LifecycleRunner({ program: require.resolve("./index.js"), programDir: __dirname, statePath: __dirname + "/state.json",
    config: { "secops:apiKey": sim.apiKeys.admin, "secops:baseUrl": sim.url } });
  const up = await runner.up();
  const live = (await sim.control.state()).rules.filter((r) => r.search === "consumer-*");
  const state = require("fs").readFileSync(__dirname + "/state.json", "utf8");
  const destroy = await runner.destroy();
  const after = (await sim.control.state()).rules.filter((r) => r.search === "consumer-*");
  console.log(JSON.stringify({ resolved: require.resolve("pulumi-secops"), declared, up, live, state, destroy, after,
    stderr: runner.hostStderr, key: sim.apiKeys.admin }));
  await runner.close();
  await sim.close();
})().catch((e) => { console.error(e); process.exit(1); });
`,
  );
  const r = await run(join(program, "run.js"), []);
  expect(r.stderr).toBe("");
  expect(r.code).toBe(0);
  const out = JSON.parse(r.stdout);
  expect(out.resolved).toBe(join(realpathSync(program), "node_modules", "pulumi-secops", "dist", "index.js"));
  const provider: string = out.declared[0].inputs.__provider;
  expect(provider).toContain('"pulumi-secops/resources/hva-automation-rule"');
  expect(provider.length).toBeLessThanOrEqual(2048);
  expect(out.up).toEqual([expect.objectContaining({ op: "create", name: "consumer-rule", ok: true })]);
  expect(out.live).toEqual([expect.objectContaining({ enabled: false, searchField: "name" })]);
  expect(out.destroy).toEqual([expect.objectContaining({ op: "delete", ok: true })]);
  expect(out.after).toEqual([]);
  for (const text of [provider, out.state, out.stderr]) expect(text).not.toContain(out.key);
}, 180_000);
