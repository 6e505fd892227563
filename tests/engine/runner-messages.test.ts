/**
 * The offline runner's words for a failure (issue 45 point 10): a step whose Diff failed is "not
 * compared", never "~ update" (nothing was to be updated); a check failure of no one property reads
 * as its reason alone (not ": reason"); every failed invoke reads `Invoke of '<token>' failed: ...`.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import * as pulumi from "@pulumi/pulumi";
import { HvaAutomationRule } from "pulumi-secops";
import { createSimulator, type Simulator } from "pulumi-secops/simulator";
import { LifecycleRunner, formatSteps, linkPackage, type StepFailedError } from "../rig";
import { ROOT, built } from "../helpers/spawn";

jest.setTimeout(120_000);
built("index.js");
let sim: Simulator;
let dir: string;

beforeAll(async () => {
  sim = await createSimulator({ seed: 45 });
  dir = mkdtempSync(join(tmpdir(), "secops-runner-messages-"));
  linkPackage(dir, ROOT);
});
afterAll(async () => {
  rmSync(dir, { recursive: true, force: true });
  await sim.close();
});

const runner = (config: Record<string, string>, state: string) =>
  new LifecycleRunner({
    program: () => {
      new HvaAutomationRule("words", { field: "name", search: "words-*" });
      void pulumi;
    },
    programDir: dir,
    statePath: join(dir, state),
    config,
    progress: false,
  });

test("a Diff that fails is 'not compared', with the provider's reason", async () => {
  const first = runner({ "secops:apiKey": sim.apiKeys.client1Admin, "secops:baseUrl": sim.url }, "diff.json");
  try {
    expect((await first.up()).map((s) => [s.op, s.ok])).toEqual([["create", true]]);
  } finally {
    await first.close();
  }
  const id = first.state().resources[0].id;
  const other = runner({ "secops:apiKey": sim.apiKeys.client2Admin, "secops:baseUrl": sim.url }, "diff.json");
  try {
    const err = (await other.preview().catch((e: unknown) => e)) as StepFailedError;
    const [step] = err.steps;
    expect(step).toMatchObject({ op: "diff-failed", ok: false });
    expect(step.error).toMatch(
      new RegExp(`^HVA rule ${id} belongs to team team-client-1, but this provider's`),
    );
    expect(formatSteps(err.steps)[0]).toBe(
      ` !  secops:HvaAutomationRule  words  not compared FAILED: ${step.error}`,
    );
  } finally {
    await other.close();
  }
});

test("a check failure of no one property (the provider's settings) reads as its reason alone", async () => {
  const bad = runner(
    { "secops:apiKey": sim.apiKeys.client1Admin, "secops:baseUrl": "htp:/nowhere" },
    "check.json",
  );
  await sim.control.resetStats();
  try {
    const err = (await bad.preview().catch((e: unknown) => e)) as StepFailedError;
    const [step] = err.steps;
    expect(step).toMatchObject({ op: "check-failed", ok: false });
    expect(step.error).toBe(
      'secops: the stack config secops:baseUrl is not usable: baseUrl must be an absolute https URL such as https://api.example.com (got "htp:/nowhere")',
    );
    expect(formatSteps(err.steps)[0]).toBe(
      ` !  secops:HvaAutomationRule  words  invalid FAILED: ${step.error}`,
    );
    expect(
      await sim.control.stats().then((s) => Object.keys(s.requests).filter((k) => !k.startsWith("GET "))),
    ).toEqual([]);
  } finally {
    await bad.close();
  }
});
