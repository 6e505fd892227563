/**
 * The drift report for people (`table`), for a pull-request comment or `$GITHUB_STEP_SUMMARY`
 * (`markdown`), and for programs (`json`, the report as it is, versioned). Every finding comes with
 * what to do about it.
 */
import { LISTS, isClean, type DriftReport, type TeamDrift } from "./report";
import { resourceOf } from "../resources/framework/registry";
import { typeOfUrn } from "../resources/framework/names";
import { nameOf } from "./adopt";
import { columns } from "./columns";

/** The output formats of `secops drift`. */
export const DRIFT_FORMATS = ["table", "json", "markdown"] as const;
export type DriftFormat = (typeof DRIFT_FORMATS)[number];

/** What the definition of the resource a URN names advises for a deleted or drifted object. */
const advice = (urn: string, when: "deleted" | "drifted") =>
  (resourceOf(typeOfUrn(urn))?.definition.drift.advice[when] ?? "").replace("{urn}", urn);

/** The stack a URN names, as `<project>/<stack>` (`urn:pulumi:<stack>::<project>::...`). */
const stackOf = (urn: string) => {
  const [stack, project] = urn.replace(/^urn:pulumi:/, "").split("::");
  return `${project}/${stack}`;
};

/** Resources as the advice names them: another stack's with that stack. */
function holders(urns: string[]) {
  const [keep, ...others] = urns.map((u) => ({ urn: u, name: nameOf(u), stack: stackOf(u) }));
  const there = (o: { stack: string }) => (o.stack === keep.stack ? "" : ` (in stack ${o.stack})`);
  const names = others.map((o) => `${o.name}${there(o)}`).join(", ");
  return { keep, others, there, names };
}

/**
 * What to do about an object two resources hold: keep the first, and take the others out of the state
 * before the program (an up that drops a resource first deletes the object under the one kept).
 */
function whenHeldTwice(urns: string[]): string {
  const { keep, others, there, names } = holders(urns);
  const deletes = others.map((o) => `pulumi state delete '${o.urn}'${there(o)}`).join(" && ");
  return `keep ${keep.name}: ${deletes}, then remove ${names} from the program (an up that drops it first deletes the object under ${keep.name})`;
}

/**
 * What to do about identical rules (one field and search, one team) each held by its own resource:
 * keep one; removing the others deletes only the rule each of them holds.
 */
function whenIdentical(urns: string[], ids: string[]): string {
  const { keep, names } = holders(urns);
  return `${ids.length} identical rules (one field and search), one per resource, where the team should have one: keep ${keep.name} (${ids[0]}) and remove ${names} from the program; the next up deletes only the rule each removed resource holds (${ids.slice(1).join(", ")})`;
}

/** What the report advises for a duplicate finding. */
const whenDuplicate = (d: TeamDrift["duplicate"][number]) =>
  d.ids ? whenIdentical(d.urns, d.ids) : whenHeldTwice(d.urns);

/**
 * What to do about an unmanaged rule identical to another: never adopt it (two resources would declare
 * one rule), and never delete it on the report's word (the managed one may be the newer of the two).
 */
function whenCopied(id: string, of: string): string {
  const keep = `never import it (two resources would hold one rule); decide by hand which of the two the team keeps, or keep both on purpose with a line "${id} # why" in the ignore file`;
  if (!of.includes("::"))
    return `not managed, identical to the unmanaged rule ${of} (offered for adoption instead): ${keep}`;
  return `not managed, identical to the rule ${nameOf(of)} manages (in stack ${stackOf(of)}): ${keep}`;
}

/** What the report says of a rule another given stack holds. */
const whenElsewhere = (o: TeamDrift["otherStacks"][number]) =>
  `managed by ${o.stack} (${nameOf(o.urn)}): nothing to do in this stack; never import or adopt it here (two stacks would hold one rule)`;

/** Said once under the adoption lines: an import alone does not keep a rule. */
export const DECLARE_IMPORTED =
  "a rule imported with pulumi import must also be declared in the program (pulumi import prints the code): the next up deletes what the program does not declare";

/** Said once under adoption lines for dynamic resources. */
export const DECLARE_ADOPTED =
  "each line is a declaration for the program: the next up takes over the identical rule (adoptExisting) instead of creating a second one";

/** The note under a team's adoption lines: imports, or adoptExisting declarations. */
const adoptNote = (t: TeamDrift) =>
  t.unmanaged.some((u) => u.import.startsWith("new ")) ? DECLARE_ADOPTED : DECLARE_IMPORTED;

const show = (v: unknown) => (v === undefined ? "(none)" : JSON.stringify(v));
const counts = (t: TeamDrift) => LISTS.map(([k, word]) => `${t[k].length} ${word}`).join(", ");
const ADOPT = "TypeScript that adopts the unmanaged rules";
const teamName = (t: TeamDrift) => (t.teamId === "" ? "(no team recorded)" : t.teamId);
const notChecked = (t: TeamDrift) =>
  `NOT CHECKED: no key for this team (${t.managed} resource(s) in the state); add --key-env with its key`;

function tableTeam(t: TeamDrift): string[] {
  const head = `team ${teamName(t)}: ${t.checked ? counts(t) : notChecked(t)}`;
  const rows: string[][] = [];
  for (const d of t.drifted)
    for (const [field, v] of Object.entries(d.fields))
      rows.push([
        "drifted",
        d.id,
        nameOf(d.urn),
        `${field}: ${show(v.state)} -> ${show(v.live)}; ${advice(d.urn, "drifted")}`,
      ]);
  for (const d of t.deleted) rows.push(["deleted", d.id, nameOf(d.urn), advice(d.urn, "deleted")]);
  for (const u of t.unmanaged)
    rows.push(["unmanaged", u.id, `${u.field}=${u.search}${u.enabled ? "" : " (disabled)"}`, u.import]);
  for (const d of t.duplicate)
    rows.push(["duplicate", d.id, d.urns.map(nameOf).join(", "), whenDuplicate(d)]);
  for (const c of t.copy) rows.push(["identical", c.id, `${c.field}=${c.search}`, whenCopied(c.id, c.of)]);
  for (const i of t.ignored) rows.push(["ignored", i.id, "", i.reason]);
  for (const o of t.otherStacks) rows.push(["other stack", o.id, `${o.field}=${o.search}`, whenElsewhere(o)]);
  if (rows.length === 0) return [head];
  return [
    head,
    ...columns([["STATUS", "ID", "RESOURCE / RULE", "WHAT TO DO"], ...rows]).map((l) => `  ${l}`),
    ...(t.adopt ? [`  ${ADOPT}: ${t.adopt}`] : []),
    ...(t.unmanaged.length ? [`  (${adoptNote(t)})`] : []),
  ];
}

/** A Markdown table cell: pipes, backticks and line breaks cannot break the table. */
const cell = (v: unknown) =>
  String(v).replace(/\\/g, "\\\\").replace(/\|/g, "\\|").replace(/`/g, "'").replace(/\r?\n/g, " ");
const code = (v: unknown) => `\`${cell(v)}\``;
const mdTable = (head: string[], rows: string[][]) => [
  `| ${head.join(" | ")} |`,
  `|${head.map(() => "---").join("|")}|`,
  ...rows.map((r) => `| ${r.join(" | ")} |`),
];

/**
 * The bounds of the Markdown report: GitHub refuses a job summary over 1 MiB
 * (`$GITHUB_STEP_SUMMARY`), and a 5,200-rule report is over it. Each table shows its first `rows`
 * rows and says how many more the JSON report holds; the counts per team and category are always
 * whole. When the text is still over `bytes`, the rows shown are halved until it fits.
 */
export interface MarkdownLimits {
  /** Rows shown per table. Default 100. */
  rows?: number;
  /** The most bytes of UTF-8 the report may take. Default 1,000,000 (under GitHub's 1 MiB). */
  bytes?: number;
  /** Where the whole report is (`secops drift --json-out <file>`), named under a shortened table. */
  jsonFile?: string;
}

/** The defaults of {@link MarkdownLimits}. */
export const MARKDOWN_LIMITS = { rows: 100, bytes: 1_000_000 } as const;

/** How a table is cut: its first `rows` rows, and where the rest is. */
interface Cut {
  rows: number;
  rest: string;
}

/** A titled Markdown table of at most `cut.rows` rows, or nothing when there are no rows. */
const section = (cut: Cut, title: string, head: string[], rows: string[][], after: string[] = []) => {
  if (!rows.length) return [];
  const shown = rows.slice(0, cut.rows);
  const more =
    rows.length > shown.length
      ? [`_${rows.length - shown.length} more of ${rows.length} not shown: ${cut.rest}._`, ""]
      : [];
  return [`**${title}**`, "", ...(shown.length ? [...mdTable(head, shown), ""] : []), ...more, ...after];
};

function markdownTeam(t: TeamDrift, cut: Cut): string[] {
  const out = ["", `### Team ${code(teamName(t))}`, ""];
  if (!t.checked) return [...out, `**${notChecked(t)}**`];
  const name = (urn: string) => code(nameOf(urn));
  const adopt = [
    ...(t.adopt ? [`${ADOPT}: ${code(t.adopt)}`, ""] : []),
    ...(t.unmanaged.length ? [`Note: ${adoptNote(t)}.`, ""] : []),
  ];
  const sections: Array<[string, string[], string[][], string[]?]> = [
    [
      "Drifted",
      ["Resource", "Id", "Field", "State", "Live", "What to do"],
      t.drifted.flatMap((d) =>
        Object.entries(d.fields).map(([f, v]) => {
          const [state, live] = [code(show(v.state)), code(show(v.live))];
          return [name(d.urn), code(d.id), f, state, live, cell(advice(d.urn, "drifted"))];
        }),
      ),
    ],
    [
      "Deleted out of band",
      ["Resource", "Id", "What to do"],
      t.deleted.map((d) => [name(d.urn), code(d.id), cell(advice(d.urn, "deleted"))]),
    ],
    [
      "Unmanaged (made by hand)",
      ["Id", "Field", "Search", "Enabled", "Adopt with"],
      t.unmanaged.map((u) => [code(u.id), cell(u.field), code(u.search), String(u.enabled), code(u.import)]),
      adopt,
    ],
    [
      "Held by two resources (duplicate)",
      ["Id", "Resources", "What to do"],
      t.duplicate.map((d) => [code(d.id), d.urns.map(name).join(", "), cell(whenDuplicate(d))]),
    ],
    [
      "Identical to another rule (not managed)",
      ["Id", "Field", "Search", "Identical to", "What to do"],
      t.copy.map((c) => [
        code(c.id),
        cell(c.field),
        code(c.search),
        name(c.of),
        cell(whenCopied(c.id, c.of)),
      ]),
    ],
    ["Ignored", ["Id", "Reason"], t.ignored.map((i) => [code(i.id), cell(i.reason)])],
    [
      "Managed by other stacks",
      ["Id", "Field", "Search", "Stack", "Resource", "What to do"],
      t.otherStacks.map((o) => [
        code(o.id),
        cell(o.field),
        code(o.search),
        code(o.stack),
        name(o.urn),
        cell(whenElsewhere(o)),
      ]),
    ],
  ];
  for (const [title, head, rows, after] of sections) out.push(...section(cut, title, head, rows, after));
  if (out.length === 3) out.push("Everything in sync.");
  return out;
}

/** The Markdown report within `limits` (see {@link MarkdownLimits}). */
function markdown(r: DriftReport, limits: MarkdownLimits): string {
  const bytes = limits.bytes ?? MARKDOWN_LIMITS.bytes;
  const rest = limits.jsonFile
    ? `every one is in ${code(limits.jsonFile)}`
    : "every one is in the JSON report (`secops drift --format json`, or `--json-out <file>` beside this one)";
  const summary = mdTable(
    ["Team", "Checked", ...LISTS.map(([, word]) => word[0].toUpperCase() + word.slice(1))],
    r.teams.map((t) => [
      code(teamName(t)),
      t.checked ? "yes" : "**no key**",
      ...LISTS.map(([k]) => (t.checked ? String(t[k].length) : "-")),
    ]),
  );
  for (let rows = limits.rows ?? MARKDOWN_LIMITS.rows; ; rows = Math.floor(rows / 2)) {
    const lines = [
      "## SecOps drift report",
      "",
      ...summary,
      ...r.teams.flatMap((t) => markdownTeam(t, { rows, rest })),
      "",
      `**Result:** ${isClean(r) ? "clean" : "drift found"}`,
    ];
    const text = `${lines.join("\n").replace(/\n{3,}/g, "\n\n")}\n`;
    if (rows === 0 || Buffer.byteLength(text) <= bytes) return text;
  }
}

/** The report in one of {@link DRIFT_FORMATS}; `limits` bound the Markdown one. */
export function formatDrift(report: DriftReport, format: DriftFormat, limits: MarkdownLimits = {}): string {
  if (format === "json") return `${JSON.stringify(report, null, 2)}\n`;
  if (format === "markdown") return markdown(report, limits);
  const verdict = isClean(report)
    ? "clean: every managed object in sync, no unmanaged rule"
    : "drift found (exit 3): see above for what to do";
  return `${[...report.teams.flatMap((t) => [...tableTeam(t), ""]), verdict].join("\n")}\n`;
}
