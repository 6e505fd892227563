/** Pulumi-like report lines for the offline runner's steps. */
import type { Op, Step } from "./plan";

const short = (type: string) => type.replace(/^pulumi-nodejs:dynamic\//, "");

const SYMBOL: Record<Op, string> = {
  create: "+ ",
  update: "~ ",
  replace: "+-",
  delete: "- ",
  same: "  ",
  drift: "~ ",
  gone: "- ",
  import: "= ",
  "check-failed": "! ",
  "diff-failed": "! ",
};
const VERB: Record<Op, string> = {
  create: "create",
  update: "update",
  replace: "replace",
  delete: "delete",
  same: "unchanged",
  drift: "drifted",
  gone: "deleted outside Pulumi",
  import: "import",
  "check-failed": "invalid",
  "diff-failed": "not compared",
};

/**
 * Pulumi-like plan lines (`+ create`, `~ update`, `- delete`), a summary line and, when given, the
 * stack outputs (as `LifecycleRunner.outputs()` returns them: secrets already masked).
 */
export function formatSteps(steps: Step[], outputs?: Record<string, unknown>): string[] {
  const lines = steps.map((s) => {
    const detail = s.changes.length ? ` [${s.changes.join(", ")}]` : "";
    const failed = s.ok ? "" : ` FAILED: ${s.error}`;
    return ` ${SYMBOL[s.op]} ${short(s.type)}  ${s.name}  ${VERB[s.op]}${detail}${failed}`;
  });
  const counts = new Map<string, number>();
  for (const s of steps) counts.set(VERB[s.op], (counts.get(VERB[s.op]) ?? 0) + 1);
  const summary = [...counts].map(([verb, n]) => `${n} ${verb}`).join(", ");
  const failed = steps.filter((s) => !s.ok).length;
  const report = [...lines, `Resources: ${summary || "none"}${failed ? `; ${failed} failed` : ""}`];
  const names = Object.keys(outputs ?? {}).sort();
  if (names.length) report.push("Outputs:", ...names.map((n) => `    ${n}: ${JSON.stringify(outputs![n])}`));
  return report;
}
