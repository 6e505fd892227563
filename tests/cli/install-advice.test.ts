/**
 * Issue 45 point 1 (install advice, one way that works) and point 15 (the ci-drift README's pointer):
 * no page a user reads suggests installing from a git URL (it installs a package without dist/; issue
 * 56: examples/hva-rules offered one in prose, "or from a git URL"), and
 * the ci-drift README's pointers lead to pages that exist.
 */
import { existsSync, readFileSync, readdirSync } from "node:fs";
import { join } from "node:path";
import { ROOT } from "../helpers/spawn";

const pages = [
  "README.md",
  ...readdirSync(join(ROOT, "docs")).map((f) => `docs/${f}`),
  ...readdirSync(join(ROOT, "examples"))
    .map((e) => `examples/${e}/README.md`)
    .filter((f) => existsSync(join(ROOT, f))),
];

test("no page suggests a git URL as an install source", () => {
  const suggesting = pages.filter((p) =>
    /"git\+https?:|npm install git|github:[\w-]+\/pulumi-secops|from a git URL/i.test(
      readFileSync(join(ROOT, p), "utf8").replace(/\s+/g, " "),
    ),
  );
  expect(suggesting).toEqual([]);
});

test("the ci-drift README points at docs/assumptions.md, which exists, not at a README table", () => {
  const text = readFileSync(join(ROOT, "examples", "ci-drift", "README.md"), "utf8").replace(/\s+/g, " ");
  expect(text).not.toContain("assumptions table in the package README");
  expect(text).toContain("`docs/assumptions.md`");
  expect(existsSync(join(ROOT, "docs", "assumptions.md"))).toBe(true);
});
