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

test.each(examples)(
  "examples/%s/README.md installs pulumi-secops from a tarball or git, never the registry",
  (example) => {
    const file = join(ROOT, "examples", example, "README.md");
    if (!existsSync(file)) return;
    const installs = readFileSync(file, "utf8").match(/npm install[^\n]*/g) ?? [];
    expect(installs.filter((l) => /\spulumi-secops(\s|@|$)/.test(l))).toEqual([]);
  },
);
