/**
 * Every TypeScript example compiles with each TypeScript major a user may have in late 2026: 5.9 (this
 * checkout's), 6 and 7 (the native compiler, `latest` on the registry), with the example's own
 * tsconfig.json, else the README's. TypeScript 6 deprecates `moduleResolution: node` (TS5107) and 7
 * rejects it (TS5108), which examples/multi-team and examples/ci-drift used (issue 45 point 9).
 *
 * TypeScript 5.9 and 6 check the five examples in one `tsc --build` each: every example is a project of
 * its own, its tsconfig read as `tsc -p` reads it, with the same messages (`--force`: none is skipped as
 * up to date), and the declarations they all read (@pulumi/pulumi's, Node's, the libs) are parsed once
 * instead of five times: ~2.3 s of CPU a major instead of ~8.5 s. TypeScript 7 (native, ~0.35 s an
 * example) checks each example with `tsc -p`.
 */
import { spawn } from "node:child_process";
import {
  cpSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { linkPackage } from "../rig";
import { ROOT, built } from "../helpers/spawn";

jest.setTimeout(300_000);
const VERSIONS = { "6": "6.0.3", "7": "7.0.2" };

function exec(cmd: string, args: string[], cwd: string) {
  return new Promise<{ code: number | null; out: string }>((resolve, reject) => {
    const child = spawn(cmd, args, { cwd });
    let out = "";
    child.stdout.on("data", (c) => (out += c));
    child.stderr.on("data", (c) => (out += c));
    child.once("error", reject);
    child.once("close", (code) => resolve({ code, out }));
  });
}

/** The README's tsconfig: the first json block after "TypeScript 7 (the native compiler". */
function readmeTsconfig(): string {
  const text = readFileSync(join(ROOT, "README.md"), "utf8");
  const from = text.indexOf("TypeScript 7 (the native compiler");
  const block = /```json\n([\s\S]*?)\n```/.exec(text.slice(from));
  if (from < 0 || !block)
    throw new Error("README.md shows no tsconfig after 'TypeScript 7 (the native compiler'");
  return block[1];
}

const EXAMPLES = readdirSync(join(ROOT, "examples")).filter((e) =>
  existsSync(join(ROOT, "examples", e, "index.ts")),
);
let work: string;
const tsc: Record<string, string> = {};
/** `tsc --build` of every example, by TypeScript major (5, 6). */
const builds: Record<string, { code: number | null; out: string }> = {};

/** An example as a user has it: its tsconfig (else the README's), this package and its peers installed. */
function copyExample(example: string): void {
  const dir = join(work, "examples", example);
  mkdirSync(dirname(dir), { recursive: true });
  cpSync(join(ROOT, "examples", example), dir, {
    recursive: true,
    filter: (src) => !src.includes("node_modules"),
  });
  if (!existsSync(join(dir, "tsconfig.json"))) writeFileSync(join(dir, "tsconfig.json"), readmeTsconfig());
  linkPackage(dir, ROOT);
  for (const dep of ["@pulumi/pulumi", "@types/node"]) {
    mkdirSync(join(dir, "node_modules", dirname(dep)), { recursive: true });
    symlinkSync(join(ROOT, "node_modules", dep), join(dir, "node_modules", dep), "dir");
  }
}

beforeAll(async () => {
  built("index.js");
  work = mkdtempSync(join(tmpdir(), "secops-examples-ts-"));
  for (const [major, version] of Object.entries(VERSIONS)) {
    const dir = join(work, `ts${major}`);
    mkdirSync(dir);
    writeFileSync(
      join(dir, "package.json"),
      JSON.stringify({ private: true, devDependencies: { typescript: version } }),
    );
    const install = await exec("npm", ["install", "--no-audit", "--no-fund", "--prefer-offline"], dir);
    if (install.code !== 0) throw new Error(`npm install typescript@${version} failed:\n${install.out}`);
    tsc[major] = join(dir, "node_modules", "typescript", "bin", "tsc");
  }
  tsc["5"] = join(ROOT, "node_modules", "typescript", "bin", "tsc");
  for (const example of EXAMPLES) copyExample(example);
  for (const major of ["5", "6"])
    builds[major] = await exec(
      process.execPath,
      [tsc[major], "--build", ...EXAMPLES, "--noEmit", "--force"],
      join(work, "examples"),
    );
});
afterAll(() => {
  if (work) rmSync(work, { recursive: true, force: true });
});

test("there are TypeScript examples, and the compilers are the versions asked for", async () => {
  expect(EXAMPLES).toEqual(expect.arrayContaining(["hva-rules", "multi-team", "ci-drift", "data-sources"]));
  const versions = await Promise.all(
    ["5", "6", "7"].map((m) => exec(process.execPath, [tsc[m], "--version"], work)),
  );
  expect(versions.map((v) => v.out.trim())).toEqual([
    expect.stringMatching(/^Version 5\.9\./),
    `Version ${VERSIONS["6"]}`,
    `Version ${VERSIONS["7"]}`,
  ]);
});

test("TypeScript 5.9 and 6 build every example with no message", () => {
  for (const major of ["5", "6"]) expect({ major, ...builds[major] }).toEqual({ major, code: 0, out: "" });
});

test.each(EXAMPLES)("examples/%s compiles with TypeScript 5.9, 6 and 7", async (example) => {
  // 5.9 and 6: no message of their build names a file of this example (paths are relative to examples/).
  for (const major of ["5", "6"]) {
    const about = builds[major].out.split("\n").filter((l) => l.startsWith(`${example}/`));
    expect({ example, major, messages: about }).toEqual({ example, major, messages: [] });
  }
  const dir = join(work, "examples", example);
  const r = await exec(process.execPath, [tsc["7"], "-p", dir, "--noEmit"], dir);
  expect({ example, major: "7", ...r }).toEqual({ example, major: "7", code: 0, out: "" });
});
