/**
 * Bad inputs through Pulumi's real host and the offline runner (issues 11 and 12): one resource's
 * oversized or misspelt inputs fail its own step, with the limit or the closest name stated; the
 * other resources proceed.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { DirectoryUserSettings, HvaAutomationRule } from "pulumi-secops";
import { createSimulator, type Simulator } from "secops-sim";
import { LifecycleRunner, linkPackage, StepFailedError } from "../rig";
import { ROOT, built } from "../helpers/spawn";

built("resources/hva-automation-rule/index.js");
let sim: Simulator;
let dir: string;
beforeAll(async () => {
  sim = await createSimulator({ seed: 83 });
  dir = mkdtempSync(join(tmpdir(), "secops-hostile-inputs-"));
  linkPackage(dir, ROOT);
});
afterAll(async () => {
  await sim.close();
  rmSync(dir, { recursive: true, force: true });
});

test("an oversized or misspelt input fails its own step; the rest of the run proceeds", async () => {
  const runner = new LifecycleRunner({
    program: () => {
      new HvaAutomationRule("huge", { field: "name", search: "x".repeat(5 * 1024 * 1024) });
      new HvaAutomationRule("long", { field: "name", search: "y".repeat(5000) });
      const typo = { field: "name", serach: "dc-*" } as unknown as { field: string; search: string };
      new HvaAutomationRule("typo", typo);
      const flags = { directoryUserId: "du-001", needsChatopsWelcome: true, credentialsExposed: false };
      new DirectoryUserSettings("user", flags as never);
      new HvaAutomationRule("fine", { field: "name", search: "hostile-inputs-*" });
    },
    programDir: dir,
    statePath: join(dir, "state.json"),
    config: { "secops:apiKey": sim.apiKeys.admin, "secops:baseUrl": sim.url },
  });
  try {
    const rejected = await runner.up().catch((e: unknown) => e as StepFailedError);
    expect(rejected).toBeInstanceOf(StepFailedError);
    // Every failure is listed, after the healthy resource was created and recorded.
    const message = (rejected as StepFailedError).message;
    expect(message.split("\n")[0]).toBe("up: 4 of 5 resource(s) failed:");
    // As the Pulumi CLI prints a resource's error: `<type> (<name>): error: <message>`.
    for (const [name, type] of [
      ["huge", "HvaAutomationRule"],
      ["long", "HvaAutomationRule"],
      ["typo", "HvaAutomationRule"],
      ["user", "DirectoryUserSettings"],
    ])
      expect(message).toContain(`\n  pulumi-nodejs:dynamic/secops:${type} (${name}): error: `);
    const steps = (rejected as StepFailedError).steps;
    const byName = [...steps].sort((a, b) => a.name.localeCompare(b.name));
    expect(byName.map((s) => [s.name, s.op, s.ok, s.error])).toEqual([
      ["fine", "create", true, undefined],
      // The runner's client accepts messages up to 400 MiB, as the engine's does: Check itself refuses it.
      ["huge", "check-failed", false, "search: search is 5242880 characters long; the limit is 4096"],
      ["long", "check-failed", false, "search: search is 5000 characters long; the limit is 4096"],
      [
        "typo",
        "check-failed",
        false,
        "serach: serach is not an input of HvaAutomationRule; did you mean search?; search: search must be a non-empty string",
      ],
      [
        "user",
        "check-failed",
        false,
        "needsChatopsWelcome: needsChatopsWelcome is not an input of DirectoryUserSettings; did you mean needsChatOpsWelcome?",
      ],
    ]);
    expect(runner.state().resources.map((r) => r.name)).toEqual(["fine"]);
    await runner.destroy();
  } finally {
    await runner.close();
  }
}, 60_000);
