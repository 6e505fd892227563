/**
 * The documentation as a newcomer meets it (issue 36), checked from the checkout: a README read in
 * five minutes (at most 250 lines), prose lines of at most 100 characters in the README and docs/,
 * every relative link (and every anchor) resolving, and every docs/ page reachable from the README.
 *
 * Code blocks are bounded by the formatter's width (110, .prettierrc.json), except `text` blocks, which show
 * a program's output as it is. Table rows are not bounded: the formatter pads every row to the widest
 * cell, and some cells are data a test reads word for word (the assumptions table).
 */
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";

const ROOT = join(__dirname, "..", "..");
const PROSE_WIDTH = 100;
const CODE_WIDTH = JSON.parse(readFileSync(join(ROOT, ".prettierrc.json"), "utf8")).printWidth as number;

const pages = [
  "README.md",
  "simulator/README.md",
  ...readdirSync(join(ROOT, "docs"))
    .filter((f) => f.endsWith(".md"))
    .map((f) => `docs/${f}`),
];
const text = (file: string) => readFileSync(join(ROOT, file), "utf8");

interface Line {
  n: number;
  line: string;
  kind: "prose" | "table" | "code" | "output";
}

/** Each line of a Markdown file with what it is part of (fence lines count as code). */
function lines(file: string): Line[] {
  const out: Line[] = [];
  let fence: string | undefined;
  text(file)
    .split("\n")
    .forEach((line, i) => {
      const open = /^\s*```(\S*)/.exec(line);
      if (open && fence === undefined) {
        fence = open[1];
        out.push({ n: i + 1, line, kind: "code" });
        return;
      }
      if (open) {
        fence = undefined;
        out.push({ n: i + 1, line, kind: "code" });
        return;
      }
      const kind =
        fence !== undefined
          ? fence === "text"
            ? "output"
            : "code"
          : line.startsWith("|")
            ? "table"
            : "prose";
      out.push({ n: i + 1, line, kind });
    });
  return out;
}

/** GitHub's anchor of a heading: lower case, punctuation dropped, spaces as hyphens. */
const slug = (heading: string) =>
  heading
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{N}\s_-]/gu, "")
    .replace(/\s/g, "-");

/** The anchors of a Markdown file's headings (outside code blocks). */
function anchors(file: string): Set<string> {
  return new Set(
    lines(file)
      .filter((l) => l.kind === "prose" && /^#{1,6} /.test(l.line))
      .map((l) => slug(l.line.replace(/^#+ /, ""))),
  );
}

/** The relative links of a page's prose and tables (inline code and code blocks are not links). */
function links(file: string): Array<{ n: number; target: string }> {
  const out: Array<{ n: number; target: string }> = [];
  for (const { n, line, kind } of lines(file)) {
    if (kind !== "prose" && kind !== "table") continue;
    const bare = line.replace(/`[^`]*`/g, "``");
    for (const m of bare.matchAll(/\]\(([^)\s]+)\)/g))
      if (!/^[a-z]+:/i.test(m[1])) out.push({ n, target: m[1] });
  }
  return out;
}

test("the README is at most 250 lines", () => {
  expect(text("README.md").trimEnd().split("\n").length).toBeLessThanOrEqual(250);
});

test.each(pages)("%s: prose lines are at most 100 characters, code at most the formatter's width", (page) => {
  const long = lines(page)
    .filter(
      (l) =>
        (l.kind === "prose" && [...l.line].length > PROSE_WIDTH) ||
        (l.kind === "code" && [...l.line].length > CODE_WIDTH),
    )
    .map((l) => `${page}:${l.n} (${[...l.line].length}, ${l.kind})`);
  expect(long).toEqual([]);
});

test.each(pages)("%s: every relative link resolves to a file, and every anchor to a heading", (page) => {
  const broken: string[] = [];
  for (const { n, target } of links(page)) {
    const [path, anchor] = target.split("#");
    const file = path === "" ? join(ROOT, page) : resolve(ROOT, dirname(page), path);
    if (!existsSync(file)) {
      broken.push(`${page}:${n}: ${target} (no such file)`);
      continue;
    }
    if (anchor === undefined) continue;
    if (!statSync(file).isFile() || !file.endsWith(".md")) {
      broken.push(`${page}:${n}: ${target} (an anchor into a file that is not Markdown)`);
      continue;
    }
    if (!anchors(relative(ROOT, file)).has(anchor))
      broken.push(`${page}:${n}: ${target} (no heading #${anchor} in ${relative(ROOT, file)})`);
  }
  expect(broken).toEqual([]);
});

test("every docs/ page is linked from the README", () => {
  const linked = new Set(links("README.md").map((l) => l.target.split("#")[0]));
  expect(pages.filter((p) => p.startsWith("docs/") && !linked.has(p))).toEqual([]);
});

test("the checks above see what they check: links, anchors, tables and code blocks are found", () => {
  // A check that finds nothing to check passes whatever the pages say.
  const readme = lines("README.md");
  expect(readme.filter((l) => l.kind === "table").length).toBeGreaterThan(10);
  expect(readme.filter((l) => l.kind === "code").length).toBeGreaterThan(20);
  expect(links("README.md").length).toBeGreaterThan(10);
  expect(anchors("README.md").has("configuration")).toBe(true);
  expect(slug("The drift report: `secops drift`")).toBe("the-drift-report-secops-drift");
  expect(pages.flatMap((p) => links(p).filter((l) => l.target.includes("#"))).length).toBeGreaterThanOrEqual(
    2,
  );
});
