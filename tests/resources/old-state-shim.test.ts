/**
 * The dynamic shim's load paths are a promise to existing stacks: Pulumi keeps each dynamic
 * resource's serialized provider in state and runs THAT text, not the program's, until the resource
 * is replaced. A stack written before the resources moved into folders holds
 * `require("pulumi-secops/resources/hva-automation-rule")` (fixtures/serialized-shims.json, the text
 * as serialized then); it must still load the implementation from the built package, resolved by the
 * package's name from the program's directory as the dynamic-provider host does (`require-from-string`
 * from its working directory).
 */
import { mkdirSync, mkdtempSync, realpathSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { built, ROOT, run } from "../helpers/spawn";
import shims from "./fixtures/serialized-shims.json";

const CASES = [
  {
    name: "HvaAutomationRule",
    module: "resources/hva-automation-rule/index.js",
    news: { field: "name", search: "old-*" },
    inputs: { field: "name", search: "old-*", enabled: true, adoptExisting: false },
  },
  {
    name: "DirectoryUserSettings",
    module: "resources/directory-user-settings/index.js",
    news: { directoryUserId: "du-1", needsChatOpsWelcome: false },
    inputs: { directoryUserId: "du-1", needsChatOpsWelcome: false, restoreOnDelete: false },
  },
] as const;

let program: string;

beforeAll(() => {
  for (const c of CASES) built(c.module);
  // A program's folder with the package installed under its name (a link to this checkout).
  program = mkdtempSync(join(tmpdir(), "secops-old-state-"));
  mkdirSync(join(program, "node_modules"));
  symlinkSync(ROOT, join(program, "node_modules", "pulumi-secops"), "dir");
});

afterAll(() => rmSync(program, { recursive: true, force: true }));

test.each(CASES)(
  "an old state's serialized $name provider loads the built implementation",
  async (c) => {
    const text = (shims as Record<string, string>)[c.name];
    expect(text).toContain(`"pulumi-secops/${c.module.replace(/\/index\.js$/, "")}"`);
    // What the host does with `__provider` (cmd/dynamic-provider getProvider), then a check.
    writeFileSync(
      join(program, "host.js"),
      `process.chdir(__dirname);
const pulumiDir = require("path").dirname(require.resolve("@pulumi/pulumi/package.json", { paths: [${JSON.stringify(ROOT)}] }));
const requireFromString = require(require.resolve("require-from-string", { paths: [pulumiDir] }));
const provider = requireFromString(${JSON.stringify(text)}).handler();
provider.check({}, ${JSON.stringify(c.news)}).then((checked) => {
  const loaded = Object.keys(require.cache).filter((k) => k.endsWith(${JSON.stringify(c.module)}));
  console.log(JSON.stringify({ checked, loaded }));
});
`,
    );
    const r = await run(join(program, "host.js"), []);
    expect(r.stderr).toBe("");
    const out = JSON.parse(r.stdout);
    expect(out.loaded).toEqual([join(realpathSync(ROOT), "dist", c.module)]);
    expect(out.checked).toEqual({ inputs: c.inputs });
  },
  30_000,
);
