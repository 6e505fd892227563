/**
 * Issue 21: the README's migration from the dynamic resources to the native provider, word for word.
 * A stack made by the dynamic resources (both kinds) through the offline runner is switched to the
 * README's native program with its aliases: `up` sends no write to the API and moves each resource to
 * its native type; without the aliases the next `up` sends none either.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { LifecycleRunner, linkPackage, stepsOf } from "..";
import { createSimulator, type Simulator } from "secops-sim";
import { ROOT, built } from "../../helpers/spawn";

built("native/plugin/main.js");
let sim: Simulator;
let dir: string;

/** The TypeScript block of the "Moving from dynamic to native" section of docs/native-provider.md. */
function readmeProgram(): string {
  const readme = readFileSync(join(ROOT, "docs", "native-provider.md"), "utf8");
  const section = readme.slice(readme.indexOf("## Moving from dynamic to native"));
  const block = /```ts\n([^]*?)```/.exec(section);
  expect(block).not.toBeNull();
  return block![1];
}
/**
 * A runner of the program in `text` on the stack's state in `folder`: each program is its own file (a
 * module system such as jest's evaluates a file once), the state is shared.
 */
function runnerOf(folder: string, file: string, text: string): LifecycleRunner {
  writeFileSync(join(folder, file), text);
  return new LifecycleRunner({
    program: join(folder, file),
    programDir: folder,
    statePath: join(folder, "state.json"),
    config: { "secops:apiKey": sim.apiKeys.admin, "secops:baseUrl": sim.url },
    project: "migration",
  });
}

/** The same program without the aliases option. */
const withoutAliases = (program: string) => program.replace(/,\s*\{\s*aliases: \[[^\]]*\],?\s*\}/g, "");

beforeAll(async () => {
  sim = await createSimulator({ seed: 21 });
  dir = mkdtempSync(join(tmpdir(), "secops-migration-"));
  linkPackage(dir, ROOT);
});
afterAll(async () => {
  await sim.close();
  rmSync(dir, { recursive: true, force: true });
});

test("the README's aliases move a dynamic stack to the native provider with 0 writes; removing them, 0 writes", async () => {
  const native = readmeProgram();
  expect(native).toContain('aliases: [{ type: "pulumi-nodejs:dynamic/secops:HvaAutomationRule" }]');
  expect(native).toContain('aliases: [{ type: "pulumi-nodejs:dynamic/secops:DirectoryUserSettings" }]');
  const dynamic = withoutAliases(native).replace('"pulumi-secops/native"', '"pulumi-secops"');
  const first = runnerOf(dir, "dynamic.ts", dynamic);
  try {
    const made = await stepsOf(first.up());
    expect(made.map((s) => [s.name, s.op, s.ok, s.error])).toEqual([
      ["ada", "create", true, undefined],
      ["dc", "create", true, undefined],
    ]);
  } finally {
    await first.close();
  }
  const stateOf = () =>
    (
      JSON.parse(readFileSync(join(dir, "state.json"), "utf8")).resources as Array<Record<string, string>>
    ).map((r) => [r.name, r.type, r.id]);
  {
    const before = stateOf();
    expect(before.map(([, type]) => type).sort()).toEqual([
      "pulumi-nodejs:dynamic/secops:DirectoryUserSettings",
      "pulumi-nodejs:dynamic/secops:HvaAutomationRule",
    ]);
    const rules = (await sim.control.state()).rules.length;

    for (const [file, text] of [
      ["native.ts", native],
      ["plain.ts", withoutAliases(native)],
    ]) {
      const next = runnerOf(dir, file, text);
      await sim.control.resetStats();
      const steps = await stepsOf(next.up()).finally(() => next.close());
      expect(steps.map((s) => [s.name, s.op, s.ok])).toEqual([
        ["ada", "same", true],
        ["dc", "same", true],
      ]);
      expect((await sim.control.stats()).writes).toBe(0);
      const after = stateOf();
      expect(after.map(([name, , id]) => [name, id])).toEqual(before.map(([name, , id]) => [name, id]));
      expect(after.map(([, type]) => type).sort()).toEqual([
        "secops:index:DirectoryUserSettings",
        "secops:index:HvaAutomationRule",
      ]);
      expect((await sim.control.state()).rules.length).toBe(rules);
    }
  }
}, 120_000);

test("without the aliases the switch would replace: the new rule is refused at check (its rule exists in the team: never a second), the user is created, the old resources deleted", async () => {
  const d2 = mkdtempSync(join(tmpdir(), "secops-migration-none-"));
  linkPackage(d2, ROOT);
  const native = readmeProgram();
  const first = runnerOf(
    d2,
    "dynamic.ts",
    withoutAliases(native).replace('"pulumi-secops/native"', '"pulumi-secops"'),
  );
  await stepsOf(first.up()).finally(() => first.close());
  const next = runnerOf(d2, "plain.ts", withoutAliases(native));
  try {
    const plan = await stepsOf(next.preview());
    // The refusal stops the plan before the rule's old resource is planned for deletion.
    expect(plan.map((s) => s.op).sort()).toEqual(["check-failed", "create", "delete"]);
    expect(JSON.stringify(plan)).toContain("a second identical rule is never created");
  } finally {
    await next.close();
    rmSync(d2, { recursive: true, force: true });
  }
}, 120_000);
