/**
 * The generated sources (schema.json, the native and dynamic classes, docs/resource-reference.md) are
 * what the definitions say, each marked as generated; and `scripts/generate.js --check` tells a copy
 * that differs (a hand edit, or a definition changed without a build) and names it. CI also fails
 * when the build leaves a generated file changed or new in `git status`.
 */
import {
  copyFileSync,
  cpSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { ROOT, run } from "../helpers/spawn";

const GENERATED = [
  "schema.json",
  "provider/native/index.ts",
  "provider/native/hva-automation-rule.ts",
  "provider/native/directory-user-settings.ts",
  "provider/dynamic/index.ts",
  "provider/dynamic/hva-automation-rule.ts",
  "provider/dynamic/directory-user-settings.ts",
  "provider/resources/hva-automation-rule/args.ts",
  "provider/resources/directory-user-settings/args.ts",
  "docs/resource-reference.md",
  "provider/client/api-types.ts",
];

test("each generated file says so", () => {
  for (const file of GENERATED.filter((f) => f.endsWith(".ts")))
    expect([file, readFileSync(join(ROOT, file), "utf8").split("\n")[0]]).toEqual([
      file,
      expect.stringMatching(/^\/\/ generated .*; do not edit$/),
    ]);
  expect(readFileSync(join(ROOT, "docs/resource-reference.md"), "utf8")).toMatch(/^<!-- generated .* -->/);
  expect(JSON.parse(readFileSync(join(ROOT, "schema.json"), "utf8")).attribution).toMatch(
    /generated .* do not edit/,
  );
});

test("generate --check accepts the files the definitions give, and names one edited by hand", async () => {
  const copy = mkdtempSync(join(tmpdir(), "secops-generated-"));
  try {
    for (const file of GENERATED) {
      mkdirSync(dirname(join(copy, file)), { recursive: true });
      copyFileSync(join(ROOT, file), join(copy, file));
    }
    const check = () => run(join(ROOT, "scripts", "generate.js"), ["--check", "--against", copy]);
    expect(await check()).toMatchObject({ code: 0, stderr: "" });
    const edited = join(copy, "provider/native/hva-automation-rule.ts");
    writeFileSync(edited, readFileSync(edited, "utf8").replace("The search text.", "The text."));
    const refused = await check();
    expect(refused.code).toBe(1);
    expect(refused.stderr).toBe(
      "generate: out of date with the resource definitions (run npm run build and commit): provider/native/hva-automation-rule.ts\n",
    );
  } finally {
    rmSync(copy, { recursive: true, force: true });
  }
});

// The copy is then this checkout's tree byte for byte, which `npm test`'s pretest (`npm run build`: the
// same generate, then tsc) compiled before this suite ran: compiling it again would prove nothing more.
test("the build stands on the definitions alone: a tree without the generated files generates them, each as committed", async () => {
  const copy = mkdtempSync(join(tmpdir(), "secops-bare-"));
  try {
    for (const part of [
      "provider",
      "scripts",
      "docs",
      "tsconfig.json",
      "tsconfig.build.json",
      "package.json",
    ])
      cpSync(join(ROOT, part), join(copy, part), { recursive: true });
    copyFileSync(join(ROOT, ".prettierrc.json"), join(copy, ".prettierrc.json"));
    symlinkSync(join(ROOT, "node_modules"), join(copy, "node_modules"), "dir");
    for (const file of GENERATED) rmSync(join(copy, file), { force: true });
    const generate = await run(join(copy, "scripts", "generate.js"), []);
    expect(generate.code).toBe(0);
    const wrote = /^generate: wrote (.*)\n$/.exec(generate.stderr)?.[1].split(", ");
    expect(wrote?.sort()).toEqual([...GENERATED].sort());
    for (const file of GENERATED)
      expect([file, readFileSync(join(copy, file), "utf8")]).toEqual([
        file,
        readFileSync(join(ROOT, file), "utf8"),
      ]);
  } finally {
    rmSync(copy, { recursive: true, force: true });
  }
}, 120_000);
