/**
 * The two packages of this repository (issue 41): pulumi-secops (provider/), and the simulator,
 * secops-sim (simulator/, an npm workspace), released together. The provider ships no simulator and
 * loads it only for `secops sim`; the simulator compiles in the few provider modules it reads.
 */
import { readdirSync, readFileSync } from "node:fs";
import { join, relative } from "node:path";
import { ROOT } from "../helpers/spawn";

const manifest = (dir: string) => JSON.parse(readFileSync(join(ROOT, dir, "package.json"), "utf8"));
const root = manifest(".");
const sim = manifest("simulator");

/** The TypeScript files under `dir`, recursively, by path from the root. */
function sources(dir: string): string[] {
  return readdirSync(join(ROOT, dir), { withFileTypes: true, recursive: true })
    .filter((e) => e.isFile() && e.name.endsWith(".ts"))
    .map((e) => relative(ROOT, join(e.parentPath, e.name)));
}

/** The module names a source file imports or requires. */
const importsOf = (file: string) =>
  [...readFileSync(join(ROOT, file), "utf8").matchAll(/(?:from |require\()"([^"]+)"/g)].map((m) => m[1]);

test("secops-sim has pulumi-secops's version and license, and the same ranges of shared dependencies", () => {
  expect(sim.name).toBe("secops-sim");
  expect(sim.version).toBe(root.version);
  expect(sim.license).toBe(root.license);
  expect(readFileSync(join(ROOT, "simulator", "LICENSE"), "utf8")).toBe(
    readFileSync(join(ROOT, "LICENSE"), "utf8"),
  );
  const rootRanges = { ...root.devDependencies, ...root.dependencies };
  for (const [dep, range] of Object.entries(sim.dependencies))
    if (rootRanges[dep] !== undefined) expect({ dep, range }).toEqual({ dep, range: rootRanges[dep] });
  expect(root.workspaces).toEqual(["simulator"]);
});

test("pulumi-secops neither exports, ships nor depends on the simulator", () => {
  expect(Object.keys(root.exports)).not.toContain("./simulator");
  expect(Object.keys(root.typesVersions["*"])).not.toContain("simulator");
  expect(Object.keys(root.bin)).not.toContain("secops-sim");
  expect(Object.keys(root.dependencies)).not.toContain("secops-sim");
  for (const dep of ["busboy", "csv-stringify"]) expect(Object.keys(root.dependencies)).not.toContain(dep);
  // One place loads it: `secops sim`, by the package's name, at run time.
  const users = sources("provider").filter((f) =>
    importsOf(f).some((m) => m.startsWith("secops-sim") || /(^|\/)simulator(\/|$)/.test(m)),
  );
  expect(users).toEqual(["provider/cli/secops.ts"]);
  expect(importsOf("provider/cli/secops.ts").filter((m) => m.startsWith("secops-sim"))).toEqual([
    "secops-sim/cli",
  ]);
});

test("the simulator's sources import only the provider modules its package compiles in", () => {
  const allowed = [
    "../provider/cli/args",
    "../provider/client/assumptions",
    "../provider/client/retry",
    "../provider/client/routes",
    "../provider/client/types",
    "../provider/drift/columns",
  ];
  const files = readdirSync(join(ROOT, "simulator")).filter((f) => f.endsWith(".ts"));
  expect(files.length).toBeGreaterThan(10);
  const reached = files.flatMap((f) => importsOf(join("simulator", f))).filter((m) => m.startsWith("../"));
  expect([...new Set(reached)].sort()).toEqual(allowed);
  for (const m of reached) expect(m).not.toMatch(/pulumi-secops/);
});
