/** `npm run demo` (the main job) exits 0 and reports each step it checked. */
import { join } from "node:path";
import { ROOT, built, run } from "../helpers/spawn";

test("npm run demo walks preview, up, drift, refresh, repair and destroy", async () => {
  built("testing/index.js");
  const r = await run(join(ROOT, "scripts/demo.js"), []);
  expect(r.stderr).toBe("");
  expect(r.code).toBe(0);
  const checks = r.stdout.split("\n").filter((l) => /^\s+(ok|NOT OK):/.test(l));
  expect(checks).toHaveLength(9);
  expect(checks.every((l) => l.trim().startsWith("ok:"))).toBe(true);
  expect(r.stdout).toContain(
    " ~  secops:HvaAutomationRule  domain-controllers  drifted [enabled: true → false]",
  );
  expect(r.stdout).toContain(
    " ~  secops:HvaAutomationRule  domain-controllers  update [enabled: false → true]",
  );
  expect(r.stdout).toMatch(/demo passed: every step did what it printed\n$/);
}, 120_000);
