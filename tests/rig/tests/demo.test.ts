/** `npm run demo` (the main job) and `npm run demo:native` exit 0 and report each step they checked. */
import { join } from "node:path";
import { RIG, ROOT, built, run } from "../../helpers/spawn";

/**
 * Runs a demo script to its end: it exits 0 with nothing on stderr, every one of its `steps` checks
 * printed "ok", and it ends with the verdict line. Returns what it printed.
 */
async function demo(script: string, steps: number): Promise<string> {
  const r = await run(join(ROOT, "scripts", script), []);
  expect({ code: r.code, stderr: r.stderr }).toEqual({ code: 0, stderr: "" });
  const checks = r.stdout.split("\n").filter((l) => /^\s+(ok|NOT OK):/.test(l));
  expect(checks).toHaveLength(steps);
  expect(checks.every((l) => l.trim().startsWith("ok:"))).toBe(true);
  expect(r.stdout).toMatch(/demo passed: every step did what it printed\n$/);
  return r.stdout;
}

test("npm run demo walks preview, up, drift, refresh, repair and destroy", async () => {
  built("index.js");
  const out = await demo("demo.js", 9);
  expect(out).toContain(" ~  secops:HvaAutomationRule  domain-controllers  drifted [enabled: true → false]");
  expect(out).toContain(" ~  secops:HvaAutomationRule  domain-controllers  update [enabled: false → true]");
}, 120_000);

test("npm run demo:native walks preview, up, import, drift, refresh, repair and destroy for two teams", async () => {
  built("plugin/pulumi-resource-secops.js");
  const out = await demo("demo-native.js", 8);
  expect(out).toContain(" =  secops:index:HvaAutomationRule  client2-legacy  import");
  expect(out).toContain(
    " ~  secops:index:HvaAutomationRule  client1-domain-controllers  drifted [enabled: true → false]",
  );
}, 120_000);

test("the demos' exit code follows the steps: a failed step printed by show() makes the demo exit 1", async () => {
  const script = `
const { checker, run } = require(${JSON.stringify(join(ROOT, "scripts", "demo-kit.js"))});
const { formatSteps } = require(${JSON.stringify(RIG)});
const { problems, show } = checker(formatSteps);
show("up", [
  { op: "create", urn: "u1", type: "t", name: "ok-rule", changes: [], ok: true },
  { op: "create", urn: "u2", type: "t", name: "bad-rule", changes: [], ok: false, error: "boom" },
]);
run(async () => problems);
`;
  const { spawn } = await import("node:child_process");
  const r = await new Promise<{ code: number | null; out: string }>((resolve) => {
    const child = spawn(process.execPath, ["-e", script]);
    let out = "";
    child.stdout.on("data", (c) => (out += c));
    child.once("close", (code) => resolve({ code, out }));
  });
  expect(r.code).toBe(1);
  expect(r.out).toContain("demo FAILED: 1 problem(s)");
});
