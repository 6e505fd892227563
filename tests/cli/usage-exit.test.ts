/**
 * Usage errors exit 2, as the README says, through one path for every command of both binaries: each
 * leaf command is taken from the commands themselves (a new command is covered without editing this
 * file) and run with an option it does not have; each one that writes a file (--out) is given a
 * folder that does not exist. Nothing reaches standard output and the message names what is wrong.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Command } from "commander";
import { program } from "../../provider/cli/secops";
import { simCommand } from "secops-sim/cli";
import { built, builtSim, run } from "../helpers/spawn";

const BINARIES: Array<[string, string, Command]> = [
  ["secops", built("cli/secops.js"), program()],
  ["secops-sim", builtSim(), simCommand()],
];
// The commands never reach the API here: a key and a URL that would be refused if they were used.
const env = { SECOPS_API_KEY: "usage-test-key-0000", SECOPS_BASE_URL: "http://127.0.0.1:9" };

/** Whether a command runs something of its own (commander keeps the action privately). */
const runs = (cmd: Command) => (cmd as unknown as { _actionHandler?: unknown })._actionHandler != null;

/**
 * Every command path that runs something, as argv words: each leaf, and each command with an action
 * and subcommands too (`secops-sim` itself serves, `secops-sim ctl ...` controls).
 */
function leaves(cmd: Command, path: string[] = []): string[][] {
  const own = cmd.commands.length === 0 || runs(cmd) ? [path] : [];
  return [...own, ...cmd.commands.flatMap((c) => leaves(c, [...path, c.name()]))];
}

/** The words that fill a leaf's required arguments (`<caseId>`, `<id>`) and mandatory options. */
function argsOf(cmd: Command, path: string[]): string[] {
  let at = cmd;
  for (const word of path) at = at.commands.find((c) => c.name() === word) as Command;
  const options = at.options.filter((o) => o.mandatory).flatMap((o) => [o.long as string, join(dir, "x")]);
  return [...at.registeredArguments.filter((a) => a.required).map(() => "x-1"), ...options];
}

function hasOption(cmd: Command, path: string[], flag: string): boolean {
  let at = cmd;
  for (const word of path) at = at.commands.find((c) => c.name() === word) as Command;
  return at.options.some((o) => o.long === flag);
}

let dir: string;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), "secops-usage-"));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe.each(BINARIES)("%s", (name, file, root) => {
  const paths = leaves(root);

  test("has the commands this test walks", () => {
    expect(paths).toContainEqual(name === "secops" ? ["sim"] : []); // the simulator's own serve
    expect(paths.length).toBeGreaterThan(name === "secops" ? 15 : 8);
  });

  test("an unknown option is a usage error (exit 2) naming it, for every command", async () => {
    for (const path of paths) {
      const r = await run(file, [...path, ...argsOf(root, path), "--no-such-option"], env);
      expect({ path, code: r.code, stdout: r.stdout, named: r.stderr.includes("--no-such-option") }).toEqual({
        path,
        code: 2,
        stdout: "",
        named: true,
      });
    }
  });
});

test("an --out into a folder that does not exist is a usage error (exit 2) naming the folder, for every command that writes one", async () => {
  const writers = BINARIES.flatMap(([, file, root]) =>
    leaves(root)
      .filter((p) => hasOption(root, p, "--out"))
      .map((path) => ({ file, root, path })),
  );
  expect(writers.map((w) => w.path.join(" ")).sort()).toEqual(
    expect.arrayContaining(["cases export", "hva export"]),
  );
  const missing = join(dir, "no-such-dir");
  for (const { file, root, path } of writers) {
    const r = await run(file, [...path, ...argsOf(root, path), "--out", join(missing, "x.out")], env);
    expect({ path, code: r.code, stdout: r.stdout, named: r.stderr.includes(missing) }).toEqual({
      path,
      code: 2,
      stdout: "",
      named: true,
    });
  }
});

test("secops sim after a root option (parsed as a subcommand, not the shortcut) exits 2 on a usage error too", async () => {
  const secops = BINARIES[0][1];
  // `secops` lists `sim` without loading the simulator package: the commands are the simulator's.
  const sim = simCommand("sim");
  const simPaths = leaves(sim);
  expect(simPaths.length).toBeGreaterThan(5);
  for (const path of simPaths) {
    const args = [
      "--api-key-env",
      "SECOPS_API_KEY",
      "sim",
      ...path,
      ...argsOf(sim, path),
      "--no-such-option",
    ];
    const r = await run(secops, args, env);
    // A usage error either way (the unknown option, or a filler value a parser refuses first).
    expect({ path, code: r.code, stdout: r.stdout, usage: r.stderr.startsWith("error: ") }).toEqual({
      path,
      code: 2,
      stdout: "",
      usage: true,
    });
  }
});
