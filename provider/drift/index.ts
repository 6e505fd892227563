/**
 * `pulumi-secops/drift`: `secops drift`'s report as a library (one key per team).
 *
 * ```ts
 * const report = await driftReport(readManaged("stack.json"), {
 *   baseUrl: process.env.SECOPS_BASE_URL!,
 *   keys: [{ name: "TEAM_A_KEY", key: process.env.TEAM_A_KEY! }],
 * });
 * process.stdout.write(formatDrift(report, "markdown"));
 * ```
 */
export { DRIFT_FORMATS, MARKDOWN_LIMITS, formatDrift, type DriftFormat, type MarkdownLimits } from "./format";
export {
  driftReport,
  isClean,
  type DriftKey,
  type DriftOptions,
  type DriftRef,
  type DriftReport,
  type TeamDrift,
} from "./report";
export {
  DriftInputError,
  ENCRYPTED,
  kindOf,
  parseIgnore,
  readIgnore,
  readManaged,
  type IgnoreRule,
  type ManagedKind,
  type ManagedResource,
  type StackExport,
} from "./state";
