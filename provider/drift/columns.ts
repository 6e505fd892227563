/**
 * Aligned columns for the tables every command prints (`secops`, `secops drift`, `secops-sim ctl`).
 * It imports nothing: the simulator package compiles it into its own.
 */

/** Rows of cells as aligned columns, each at most `max` characters (a longer cell is cut with "…"). */
export function columns(rows: string[][], max = Infinity): string[] {
  const widths = rows[0].map((_, i) => Math.min(max, Math.max(...rows.map((r) => r[i].length))));
  const fit = (c: string, i: number) =>
    c.length > widths[i] ? `${c.slice(0, widths[i] - 1)}…` : c.padEnd(widths[i]);
  return rows.map((r) => r.map(fit).join("  ").trimEnd());
}
