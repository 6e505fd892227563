/**
 * How the runner reads a tsconfig without TypeScript's JS API (TypeScript 7): comments and trailing
 * commas go, and strings stay whole even when they hold what looks like either.
 */
import { withoutComments } from "../rig/typecheck";

test("comments and trailing commas outside strings are dropped; strings are kept whole", () => {
  const text = `{ // the compiler's options
  "compilerOptions": { "outDir": "a, }", /* x */ "noCheck": true, /* y */ },
  "files": ["index.ts", "// not a comment",],
}`;
  expect(JSON.parse(withoutComments(text))).toEqual({
    compilerOptions: { outDir: "a, }", noCheck: true },
    files: ["index.ts", "// not a comment"],
  });
  expect(JSON.parse(withoutComments(`{"a": 1 /* , } */, "b": "x,]",}`))).toEqual({ a: 1, b: "x,]" });
});
