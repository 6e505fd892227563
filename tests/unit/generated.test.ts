/**
 * The generated sources (schema.json, the native and dynamic classes, docs/resource-reference.md) are
 * what the resource definitions say: `scripts/generate.js --check` (run by the build too) fails, naming
 * the files, when one was edited by hand or a definition changed without a build.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { ROOT, built, run } from "../helpers/spawn";

test("every generated file matches the definitions and says it is generated", async () => {
  built("resources/registry.js");
  const checked = await run(join(ROOT, "scripts", "generate.js"), ["--check"]);
  expect({ code: checked.code, stderr: checked.stderr }).toEqual({ code: 0, stderr: "" });
  for (const file of ["provider/native/hva-automation-rule.ts", "provider/dynamic/index.ts"])
    expect(readFileSync(join(ROOT, file), "utf8").split("\n")[0]).toMatch(/^\/\/ generated .*; do not edit$/);
  expect(JSON.parse(readFileSync(join(ROOT, "schema.json"), "utf8")).attribution).toMatch(
    /generated .* do not edit/,
  );
});
