/**
 * The package as a user gets it: `npm pack`, install the tarball into a temporary Pulumi program,
 * run that program under mocks and through Pulumi's host from its own directory. The simulator
 * package (secops-sim, simulator/) is packed and installed beside it as a dev dependency, as the
 * docs tell users to.
 */
import { execFileSync } from "node:child_process";
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  realpathSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, relative } from "node:path";
import { ROOT, built, run, RIG } from "../helpers/spawn";

const TEMPLATE_TSCONFIG = {
  // The tsconfig `pulumi new typescript` writes: strict, moduleResolution node (which ignores package.json
  // "exports"), no skipLibCheck, no esModuleInterop.
  compilerOptions: {
    strict: true,
    outDir: "bin",
    target: "es2020",
    module: "commonjs",
    moduleResolution: "node",
    sourceMap: true,
    experimentalDecorators: true,
    pretty: false,
    noFallthroughCasesInSwitch: true,
    noImplicitReturns: true,
    forceConsistentCasingInFileNames: true,
  },
  files: ["index.ts"],
};

let work: string;
let program: string;
let packed: { filename: string; files: { path: string }[] };
let packedSim: { filename: string; files: { path: string }[] };
beforeAll(() => {
  built("index.js");
  built("plugin/pulumi-resource-secops.js");
  work = mkdtempSync(join(tmpdir(), "secops-consumer-"));
  // dist/ is built (npm test's pretest): packing without `prepare` leaves it alone while other test
  // files run the plugin from it.
  packed = JSON.parse(npm(["pack", "--json", "--ignore-scripts", "--pack-destination", work], ROOT))[0];
  const simDir = join(ROOT, "simulator");
  packedSim = JSON.parse(npm(["pack", "--json", "--ignore-scripts", "--pack-destination", work], simDir))[0];
  program = join(work, "program");
  mkdirSync(program);
  writeFileSync(join(program, "Pulumi.yaml"), "name: consumer\nruntime: nodejs\n");
  writeFileSync(
    join(program, "package.json"),
    JSON.stringify({
      name: "consumer",
      private: true,
      dependencies: { "pulumi-secops": `file:${join(work, packed.filename)}` },
      devDependencies: { "secops-sim": `file:${join(work, packedSim.filename)}` },
    }),
  );
  npm(["install", "--no-audit", "--no-fund", "--prefer-offline", "--legacy-peer-deps"], program);
  // The user's own @pulumi/pulumi (the peer dependency) and @types/node: the ones this repository tests.
  for (const dep of ["@pulumi/pulumi", "@types/node"]) {
    mkdirSync(join(program, "node_modules", dirname(dep)), { recursive: true });
    symlinkSync(join(ROOT, "node_modules", dep), join(program, "node_modules", dep), "dir");
  }
}, 180_000);
afterAll(() => rmSync(work, { recursive: true, force: true }));

const npm = (args: string[], cwd: string) =>
  execFileSync("npm", args, {
    cwd,
    encoding: "utf8",
    stdio: ["ignore", "pipe", "pipe"],
    env: { ...process.env, npm_config_update_notifier: "false" },
  });

test("the tarball holds dist, the bins, README, docs and LICENSE; no tests, sources or source maps", () => {
  const files = packed.files.map((f) => f.path).sort();
  const pkg = JSON.parse(readFileSync(join(ROOT, "package.json"), "utf8"));
  expect(files).toEqual(expect.arrayContaining(["LICENSE", "README.md", "package.json", "dist/index.js"]));
  // The pages errors point at (docs/assumptions.md) are installed with the package.
  expect(files).toContain("docs/assumptions.md");
  for (const bin of Object.values<string>(pkg.bin)) expect(files).toContain(bin);
  // The plugin's one-file bundle, which bin/pulumi-resource-secops runs; never the release archive.
  expect(files).toContain("dist/plugin/pulumi-resource-secops.js");
  expect(files.filter((f) => f.startsWith("dist/release/"))).toEqual([]);
  // The simulator is its own package (issue 41): none of it ships here, and no `secops-sim` bin.
  expect(files.filter((f) => /^dist\/(simulator\/|cli\/(secops-sim|sim-ctl))/.test(f))).toEqual([]);
  expect(Object.keys(pkg.bin)).not.toContain("secops-sim");
  const targets = [
    ...Object.values<{ types: string; default: string } | string>(pkg.exports).flatMap((e) =>
      typeof e === "string" ? [e] : [e.types, e.default],
    ),
    ...Object.values<string[]>(pkg.typesVersions["*"]).flat(),
  ].map((t) => t.replace(/^\.\//, ""));
  for (const target of targets) {
    const pattern = new RegExp(`^${target.replace(/[.]/g, "\\.").replace("*", "[^/]+")}$`);
    expect({ target, shipped: files.some((f) => pattern.test(f)) }).toEqual({ target, shipped: true });
  }
  expect(
    files.filter(
      (f) =>
        !/^(dist\/.*\.(js|d\.ts)|docs\/[\w-]+\.md|examples\/.+|LICENSE|README\.md|package\.json|schema\.json|bin\/pulumi-resource-secops|policy-pack\/(PulumiPolicy\.yaml|package\.json|index\.js|pulumi-analyzer-secops))$/.test(
          f,
        ),
    ),
  ).toEqual([]);
  // The examples ship whole, without anything installed or built in them.
  expect(files.filter((f) => /^examples\/.*(node_modules|\.ci-cache|venv)\//.test(f))).toEqual([]);
  // Every relative link of a shipped page resolves to what the tarball holds (issue 45 point 15: the
  // docs linked to examples/ and tests/, which were not in it).
  const broken: string[] = [];
  for (const page of files.filter((f) => f.endsWith(".md"))) {
    const text = readFileSync(join(program, "node_modules", "pulumi-secops", page), "utf8");
    for (const [, target] of text.matchAll(/\]\((?!https?:|#|mailto:)([^)#\s]+)[^)]*\)/g)) {
      const path = join(dirname(page), target).replace(/\/$/, "");
      if (!files.some((f) => f === path || f.startsWith(`${path}/`))) broken.push(`${page}: ${target}`);
    }
  }
  expect(broken).toEqual([]);
  expect(files.filter((f) => f.endsWith(".map"))).toEqual([]);
  const js = files.filter((f) => f.endsWith(".js"));
  const mapped = js.filter((f) =>
    readFileSync(join(program, "node_modules", "pulumi-secops", f), "utf8").includes("sourceMappingURL"),
  );
  expect(mapped).toEqual([]);
});

test("the simulator's tarball holds its compiled sources, README and LICENSE; installed, `secops-sim` and `secops sim` run it", async () => {
  const files = packedSim.files.map((f) => f.path).sort();
  const pkg = JSON.parse(readFileSync(join(ROOT, "simulator", "package.json"), "utf8"));
  expect(files).toEqual(
    expect.arrayContaining(["LICENSE", "README.md", "package.json", pkg.bin["secops-sim"]]),
  );
  expect(files.filter((f) => !/^(dist\/.*\.(js|d\.ts)|LICENSE|README\.md|package\.json)$/.test(f))).toEqual(
    [],
  );
  for (const e of Object.values<{ types: string; default: string } | string>(pkg.exports))
    for (const target of typeof e === "string" ? [e] : [e.types, e.default])
      expect({ target, shipped: files.includes(target.replace(/^\.\//, "")) }).toEqual({
        target,
        shipped: true,
      });
  // Self-contained: the few provider modules it reads (the assumptions table, ...) are compiled in,
  // never the provider itself (its client, resources or front-ends).
  expect(files).toContain("dist/provider/client/assumptions.js");
  expect(
    files.filter((f) => /^dist\/provider\/(index|client\/(client|http)|resources|native|dynamic)\b/.test(f)),
  ).toEqual([]);
  const bin = join(program, "node_modules", ".bin");
  const sim = await run(join(bin, "secops-sim"), ["--version"]);
  expect(sim).toEqual({ code: 0, stdout: `${pkg.version}\n`, stderr: "" });
  // `secops sim` finds the simulator installed beside pulumi-secops.
  const help = await run(join(bin, "secops"), ["sim", "--help"]);
  expect({ code: help.code, stderr: help.stderr }).toEqual({ code: 0, stderr: "" });
  expect(help.stdout).toMatch(/^Usage: secops sim \[options\] \[command\]\n/);
});

test("no declaration reachable from the package's entry points refers to zod", () => {
  const pkgDir = join(program, "node_modules", "pulumi-secops");
  const seen = new Set<string>();
  const queue = packed.files
    .map((f) => f.path)
    .filter((f) =>
      /^dist\/(index|client\/index|native\/index|drift\/index|resources\/[^/]+\/index|functions\/[^/]+)\.d\.ts$/.test(
        f,
      ),
    )
    .map((f) => join(pkgDir, f));
  queue.push(join(program, "node_modules", "secops-sim", "dist", "simulator", "index.d.ts"));
  expect(queue.length).toBeGreaterThan(8);
  const offenders: string[] = [];
  while (queue.length > 0) {
    const file = queue.pop()!;
    if (seen.has(file)) continue;
    seen.add(file);
    const text = readFileSync(file, "utf8");
    for (const m of text.matchAll(/(?:from\s+|import\()["']([^"']+)["']/g)) {
      const spec = m[1];
      const target = join(dirname(file), spec.replace(/\.js$/, ""));
      if (spec.startsWith("."))
        queue.push(existsSync(`${target}.d.ts`) ? `${target}.d.ts` : join(target, "index.d.ts"));
      else if (spec === "zod" || spec.startsWith("zod/")) offenders.push(relative(pkgDir, file));
    }
  }
  expect(seen.size).toBeGreaterThan(20);
  expect(offenders).toEqual([]);
});

test("a program using every public export compiles with the standard Pulumi tsconfig", () => {
  const source = readFileSync(join(ROOT, "tests", "consumer", "program", "index.ts"), "utf8");
  writeFileSync(join(program, "index.ts"), source);
  writeFileSync(join(program, "tsconfig.json"), JSON.stringify(TEMPLATE_TSCONFIG, null, 2));
  const pkgDir = join(program, "node_modules", "pulumi-secops", "dist");
  const entries: Record<string, string> = {
    secops: join(pkgDir, "index.d.ts"),
    client: join(pkgDir, "client/index.d.ts"),
    simulator: join(program, "node_modules", "secops-sim", "dist", "simulator", "index.d.ts"),
    native: join(pkgDir, "native/index.d.ts"),
    drift: join(pkgDir, "drift/index.d.ts"),
  };
  const uncovered: string[] = [];
  for (const [alias, file] of Object.entries(entries)) {
    const names = exportedNames(file);
    expect(names.length).toBeGreaterThan(3);
    for (const name of names)
      if (!new RegExp(`\\b${alias}\\.${name}\\b`).test(source)) uncovered.push(`${alias}.${name}`);
  }
  expect(uncovered).toEqual([]);
  const tsc = join(ROOT, "node_modules", "typescript", "bin", "tsc");
  let output = "";
  try {
    execFileSync(process.execPath, [tsc, "-p", program], { cwd: program, encoding: "utf8", stdio: "pipe" });
  } catch (err) {
    output = String((err as { stdout?: string }).stdout);
  }
  expect(output).toBe("");
  expect(readFileSync(join(program, "bin", "index.js"), "utf8")).toContain('require("pulumi-secops/client")');
}, 120_000);

/**
 * The names a declaration file exports (`export { a, type B }`, `export declare function f`, ...),
 * and those of each module it re-exports whole (`export * from "./client"`: the root re-exports the
 * client's list, which is the contract).
 */
function exportedNames(file: string): string[] {
  const dts = readFileSync(file, "utf8");
  const names = new Set<string>();
  for (const m of dts.matchAll(/export \* from "(\.[^"]+)"/g)) {
    const target = join(dirname(file), m[1]);
    const next = existsSync(`${target}.d.ts`) ? `${target}.d.ts` : join(target, "index.d.ts");
    for (const name of exportedNames(next)) names.add(name);
  }
  for (const m of dts.matchAll(/export\s+(?:type\s+)?\{([^}]*)\}/g))
    for (const part of m[1].split(",")) {
      const name = part
        .trim()
        .replace(/^type\s+/, "")
        .split(/\s+as\s+/)
        .pop()!
        .trim();
      if (name) names.add(name);
    }
  for (const m of dts.matchAll(
    /export\s+(?:declare\s+)?(?:abstract\s+)?(?:function|class|const|let|interface|type|enum)\s+(\w+)/g,
  ))
    names.add(m[1]);
  for (const m of dts.matchAll(/export\s+\*\s+as\s+(\w+)/g)) names.add(m[1]);
  return [...names];
}

test("the packed tarball installs, serializes a thin provider and runs through the host by name", async () => {
  const files: string[] = packed.files.map((f: { path: string }) => f.path);
  expect(files).toContain("dist/resources/hva-automation-rule/index.js");
  expect(files.some((f) => f.startsWith("provider/") || f.startsWith("tests/"))).toBe(false);
  // The offline runner is the repository's test rig, not part of the package.
  expect(files.filter((f) => /(^|\/)(testing|rig)\//.test(f))).toEqual([]);

  writeFileSync(
    join(program, "index.js"),
    `const { HvaAutomationRule } = require("pulumi-secops");
new HvaAutomationRule("consumer-rule", { field: "name", search: "consumer-*", enabled: false });
`,
  );
  writeFileSync(
    join(program, "run.js"),
    `const { createSimulator } = require("secops-sim");
const { LifecycleRunner, declaredResources } = require(${JSON.stringify(RIG)});
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

test("installed from the tarball, the plugin starts from node_modules/pulumi-secops/bin and serves a team", async () => {
  const pkgDir = join(program, "node_modules", "pulumi-secops");
  const pkg = JSON.parse(readFileSync(join(pkgDir, "package.json"), "utf8"));
  expect(pkg.bin["pulumi-resource-secops"]).toBe("bin/pulumi-resource-secops");
  // npm links the bin, as the engine would find it on PATH after `npm install -g`.
  expect(existsSync(join(program, "node_modules", ".bin", "pulumi-resource-secops"))).toBe(true);
  writeFileSync(
    join(program, "plugin.js"),
    `const { createSimulator } = require("secops-sim");
const { NativePluginProcess, secret } = require(${JSON.stringify(RIG)});
(async () => {
  const sim = await createSimulator({ seed: 62 });
  const executable = require("path").join(__dirname, process.argv[2], "pulumi-resource-secops");
  const plugin = await NativePluginProcess.start({ executable, cwd: __dirname });
  const version = await plugin.getPluginInfo();
  const schema = JSON.parse(await plugin.getSchema()).name;
  await plugin.configure({ apiKey: secret(sim.apiKeys.client1Admin), baseUrl: sim.url });
  const me = await plugin.invoke("secops:index:getIdentity", {});
  await plugin.close();
  await sim.close();
  console.log(JSON.stringify({ version, schema, team: me.result.teamId }));
})().catch((e) => { console.error(e); process.exit(1); });
`,
  );
  // The folder the README's Pulumi.yaml names (plugins.providers[].path), word for word.
  const readme = readFileSync(join(ROOT, "README.md"), "utf8");
  const yaml = /plugins:\n\s+providers:\n\s+- name: secops\n\s+path: (\S+)\n/.exec(readme);
  expect(yaml?.[1]).toBe("./node_modules/pulumi-secops/bin");
  const r = await run(join(program, "plugin.js"), [yaml![1]]);
  expect(r.stderr).toBe("");
  expect(r.code).toBe(0);
  expect(JSON.parse(r.stdout)).toEqual({ version: pkg.version, schema: "secops", team: "team-client-1" });
}, 60_000);
