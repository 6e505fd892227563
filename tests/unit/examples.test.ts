/**
 * The examples as a newcomer meets them: a lockfile that `npm ci` accepts (its entry for this package,
 * `file:../..`, says what package.json says), and no install line that the registry answers with 404.
 */
import { readdirSync, readFileSync, existsSync } from "node:fs";
import { join } from "node:path";

const ROOT = join(__dirname, "..", "..");
const examples = readdirSync(join(ROOT, "examples"));
const pkg = JSON.parse(readFileSync(join(ROOT, "package.json"), "utf8"));

test.each(examples.filter((e) => existsSync(join(ROOT, "examples", e, "package-lock.json"))))(
  "examples/%s/package-lock.json records this package as package.json does",
  (example) => {
    const lock = JSON.parse(readFileSync(join(ROOT, "examples", example, "package-lock.json"), "utf8"));
    const entry = lock.packages["../.."];
    const fields = [
      "version",
      "dependencies",
      "devDependencies",
      "peerDependencies",
      "bin",
      "engines",
    ] as const;
    for (const field of fields) expect({ field, value: entry[field] }).toEqual({ field, value: pkg[field] });
  },
);

/** Every page a newcomer reads: the README, docs/ and the examples' READMEs. */
const pages = [
  "README.md",
  ...readdirSync(join(ROOT, "docs"))
    .filter((f) => f.endsWith(".md"))
    .map((f) => `docs/${f}`),
  ...examples.map((e) => `examples/${e}/README.md`),
].filter((f) => existsSync(join(ROOT, f)));

test.each(pages)("%s never installs pulumi-secops from the registry, where it is not published", (page) => {
  const installs = readFileSync(join(ROOT, page), "utf8").match(/npm install[^\n]*/g) ?? [];
  expect(installs.filter((l) => /\spulumi-secops(\s|@|$)/.test(l))).toEqual([]);
});
