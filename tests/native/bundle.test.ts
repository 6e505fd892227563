/**
 * What the plugin's bundle carries of its vendor packages (scripts/bundle-plugin.js): zod with its
 * English locale alone (its other ~60 languages were half of the file, all run when zod loads), and
 * still the same messages.
 */
import { readFileSync } from "node:fs";
import { built } from "../helpers/spawn";

test("the plugin's zod holds the English locale alone, and speaks it", () => {
  const file = built("plugin/secops-zod.js");
  const { z } = require(file)["zod"] as typeof import("zod");
  expect(Object.keys(z.locales)).toEqual(["en"]);
  const result = z.strictObject({ name: z.string() }).safeParse({ name: 7, extra: true });
  expect(result.success).toBe(false);
  expect(result.error!.issues.map((i) => i.message)).toEqual([
    "Invalid input: expected string, received number",
    'Unrecognized key: "extra"',
  ]);
  // No other language's text made it in (Hebrew, Russian and Japanese locales among the dropped).
  expect(readFileSync(file, "utf8")).not.toMatch(/\\u05[d-e][0-9a-f]|\\u04[0-4][0-9a-f]|\\u30[a-f][0-9a-f]/i);
  expect(readFileSync(file).length).toBeLessThan(400_000);
});
