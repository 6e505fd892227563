/** Plain-text tables for the CLI. */
import type { Detection } from "../client/types";

const COLUMNS: Array<[string, (d: Detection) => unknown]> = [
  ["ID", (d) => d.id],
  ["CREATED", (d) => d.createdAt],
  ["SEVERITY", (d) => d.severity],
  ["STATUS", (d) => d.status],
  ["VERDICT", (d) => d.verdict],
  ["TITLE", (d) => d.title],
];

/** A readable table of indicators with a closing count line. */
export function indicatorTable(rows: Detection[], totalCount: number): string {
  const cells = rows.map((d) => COLUMNS.map(([, f]) => String(f(d) ?? "").replace(/\s+/g, " ")));
  const widths = COLUMNS.map(([h], i) => Math.min(60, Math.max(h.length, ...cells.map((r) => r[i].length))));
  const line = (r: string[]) =>
    r
      .map((c, i) => (c.length > widths[i] ? `${c.slice(0, widths[i] - 1)}…` : c.padEnd(widths[i])))
      .join("  ")
      .trimEnd();
  return [
    line(COLUMNS.map(([h]) => h)),
    ...cells.map(line),
    `${rows.length} of ${totalCount} indicators`,
    "",
  ].join("\n");
}

/** Rows of cells as aligned columns under their headers, each line ending with a newline. */
export function columns(headers: string[], rows: string[][]): string {
  const width = headers.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i].length)));
  const line = (cells: string[]) =>
    cells
      .map((c, i) => c.padEnd(width[i]))
      .join("  ")
      .trimEnd();
  return [headers, ...rows].map((r) => `${line(r)}\n`).join("");
}
