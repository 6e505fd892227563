/**
 * docs/testing.md's two examples, run as written (issue 41: users test programs with Pulumi's mocks
 * and with the Automation API against the simulator, not with a runner of ours). Each TypeScript
 * block is transpiled and run by Node in a project folder whose node_modules hold this checkout and
 * @pulumi/pulumi, with jest's own `expect` and a `test` that runs its body; the second reaches the
 * real Pulumi CLI through PATH, as a user's would.
 */
import { readFileSync, symlinkSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import * as ts from "typescript";
import { cliEnv, exec, programDir } from "../helpers/pulumi-cli";
import { ROOT, built } from "../helpers/spawn";

jest.setTimeout(300_000);
built("index.js");

const blocks = [
  ...readFileSync(join(ROOT, "docs", "testing.md"), "utf8").matchAll(/```ts\n([\s\S]*?)```/g),
].map((m) => m[1]);

/** Runs one block as a script: `test(name, body)` awaits the body; a failed expect exits 1. */
async function runBlock(code: string): Promise<{ code: number; out: string; err: string }> {
  const project = programDir("testing-doc");
  try {
    symlinkSync(
      dirname(require.resolve("expect/package.json")),
      join(project.dir, "node_modules", "expect"),
      "dir",
    );
    const script = [
      'const { expect } = require("expect");',
      "const pending = [];",
      "const test = (name, body) => pending.push(body());",
      ts.transpileModule(code, {
        compilerOptions: { module: ts.ModuleKind.CommonJS, target: ts.ScriptTarget.ES2022 },
      }).outputText,
      "Promise.all(pending).then(() => console.log('passed'), (e) => { console.log(String(e.message)); process.exit(1); });",
    ].join("\n");
    writeFileSync(join(project.dir, "example.test.js"), script);
    const r = await exec(process.execPath, ["example.test.js"], project.dir, {
      ...process.env,
      ...cliEnv(project.backend),
    });
    return { code: r.code, out: r.stdout, err: withoutFfiWarning(r.stderr) };
  } finally {
    project.remove();
  }
}

/**
 * Standard error without the warning Node 26 prints when Pulumi's serializer loads every built-in
 * module, `node:ffi` among them (nothing uses FFI; see the rig's README).
 */
const withoutFfiWarning = (text: string) =>
  text
    .replace(/\(node:\d+\) ExperimentalWarning: FFI is an experimental feature[^\n]*\n/, "")
    .replace(/\(Use `node --trace-warnings \.\.\.` to show where the warning was created\)\n/, "");

test("the page has the two examples", () => {
  expect(blocks).toHaveLength(2);
  expect(blocks[0]).toContain("pulumi.runtime.setMocks(");
  expect(blocks[1]).toContain("LocalWorkspace.createOrSelectStack(");
});

test("the setMocks example passes as written", async () => {
  expect(await runBlock(blocks[0])).toEqual({ code: 0, out: "passed\n", err: "" });
});

test("the Automation API example makes one rule in the simulator and removes it, through the real CLI", async () => {
  const r = await runBlock(blocks[1]);
  expect(r).toEqual({ code: 0, out: expect.stringContaining("passed\n"), err: "" });
});

test("a wrong expectation fails the run: the harness is not vacuous", async () => {
  const wrong = blocks[0].replace('expect(search).toBe("dc-*")', 'expect(search).toBe("web-*")');
  expect(wrong).not.toBe(blocks[0]);
  const r = await runBlock(wrong);
  expect(r.code).toBe(1);
  expect(r.out).toContain('Expected: "web-*"');
});
