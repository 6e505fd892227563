/**
 * The drift report's ignore file: one rule id or search glob (matched against the search) per line,
 * each with its `# reason` (a hand-made rule kept out of the failure says why).
 */
import type { HvaRule } from "../client/types";
import { globRegExp } from "../resources/hva-automation-rule/glob";
import { DriftInputError, readInput } from "./state";

/** One line of the ignore file. */
export interface IgnoreRule {
  /** A rule id, or a search glob. */
  pattern: string;
  reason: string;
  /** Where it was read (`file:line`), for messages. */
  where: string;
}

/** Parses the text of an ignore file (`source` names it in errors). */
export function parseIgnore(text: string, source = "ignore file"): IgnoreRule[] {
  const rules: IgnoreRule[] = [];
  for (const [i, raw] of text.split(/\r?\n/).entries()) {
    const line = raw.trim();
    if (line === "" || line.startsWith("#")) continue;
    const hash = line.indexOf("#");
    const pattern = (hash < 0 ? line : line.slice(0, hash)).trim();
    const reason = hash < 0 ? "" : line.slice(hash + 1).trim();
    const where = `${source}:${i + 1}`;
    if (/\s/.test(pattern))
      throw new DriftInputError(
        `${where}: one rule id or search glob per line, then "# reason" (got ${JSON.stringify(pattern)})`,
      );
    if (reason === "")
      throw new DriftInputError(`${where}: ${pattern} has no reason: add "# why this rule is not managed"`);
    rules.push({ pattern, reason, where });
  }
  return rules;
}

/** Reads and parses an ignore file. */
export function readIgnore(path: string): IgnoreRule[] {
  return parseIgnore(readInput(path), path);
}

/** The reason an ignore rule gives for this rule (a glob has `*` or `?`), or undefined when none names it. */
export function ignoredBy(
  rules: readonly IgnoreRule[],
  rule: Pick<HvaRule, "id" | "search">,
): string | undefined {
  const names = ({ pattern: p }: IgnoreRule) =>
    /[*?]/.test(p) ? globRegExp(p).test(rule.search ?? "") : p === rule.id;
  return rules.find(names)?.reason;
}
