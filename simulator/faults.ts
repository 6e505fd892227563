/**
 * Fault injection. A rule names a kind, which requests it applies to (method, path prefix), how
 * often (`rate`, drawn from a seeded PRNG so runs repeat) and how many times at most (`times`).
 *
 * Kinds and what the client sees:
 * - `403` (as for a role without access), `429` (with Retry-After), `500`, `502`, `503`: that status
 *   with a JSON error body; nothing processed.
 * - `latency`: the request waits `latencyMs` and is then processed normally.
 * - `reset`: the connection is destroyed before the request is processed.
 * - `commit-drop`: the request is processed (the write happens), then the connection is destroyed.
 * - `commit-500`: the request is processed (the write happens), then answered 500.
 * - `commit-stall`: the request is processed (the write happens); the answer waits `latencyMs` (as
 *   when the caller dies before it arrives).
 * - `malformed-json`, `wrong-shape`, `empty-200`: processed, then a 200 with a broken, wrongly shaped
 *   or empty body.
 * - `html`: a 502 HTML error page (as from a proxy); nothing processed.
 * - `html-404`: a 404 HTML page (as from a gateway that lost the route); nothing processed.
 */
import { rng } from "./seed";

/** Every fault kind. */
export const FAULT_KINDS = [
  "403",
  "429",
  "500",
  "502",
  "503",
  "latency",
  "reset",
  "commit-drop",
  "commit-500",
  "commit-stall",
  "malformed-json",
  "wrong-shape",
  "html",
  "html-404",
  "empty-200",
] as const;

/** One fault kind. */
export type FaultKind = (typeof FAULT_KINDS)[number];

/** One fault rule. */
export interface FaultRule {
  kind: FaultKind;
  /** Only this method (e.g. `PUT`); any when absent. */
  method?: string;
  /** Only paths starting with this; any when absent. */
  path?: string;
  /** Probability per matching request, 0..1. Default 1. */
  rate?: number;
  /** Inject at most this many times. Unlimited when absent. */
  times?: number;
  /** Let this many matching requests through untouched before injecting. Default 0. */
  skip?: number;
  /** Retry-After for 429 (seconds, or an HTTP date). Default "1". */
  retryAfter?: string | number;
  /** Delay for `latency` and `commit-stall`, in ms. Default 200. */
  latencyMs?: number;
}

/** Faults applied after the request is processed (the write happens, the answer is broken). */
const AFTER: ReadonlySet<FaultKind> = new Set([
  "commit-drop",
  "commit-500",
  "commit-stall",
  "malformed-json",
  "wrong-shape",
  "empty-200",
]);
/** Faults applied before the request is processed: every other kind. */
export const BEFORE: ReadonlySet<FaultKind> = new Set(FAULT_KINDS.filter((k) => !AFTER.has(k)));

/**
 * Parses a fault spec: a JSON array of rules, or the compact form
 * `kind[:rate][@METHOD /path-prefix]` separated by commas, e.g. `429:0.1@PUT /endpoint,reset:0.05`.
 */
export function parseFaultSpec(spec: string): FaultRule[] {
  const s = spec.trim();
  if (s === "") return [];
  const rules: FaultRule[] = s.startsWith("[")
    ? (JSON.parse(s) as FaultRule[])
    : s.split(",").map((part) => {
        const [head, target] = part.trim().split("@");
        const [kind, rate] = head.split(":");
        const rule: FaultRule = { kind: kind as FaultKind };
        if (rate !== undefined) rule.rate = Number(rate);
        if (target) {
          const [method, path] = target.trim().split(/\s+/);
          if (path) {
            rule.method = method.toUpperCase();
            rule.path = path;
          } else if (method.startsWith("/")) rule.path = method;
          else rule.method = method.toUpperCase();
        }
        return rule;
      });
  for (const r of rules) validateRule(r);
  return rules;
}

function validateRule(r: FaultRule): void {
  if (!FAULT_KINDS.includes(r.kind))
    throw new Error(`unknown fault kind "${r.kind}"; known: ${FAULT_KINDS.join(", ")}`);
  if (r.rate !== undefined && !(r.rate >= 0 && r.rate <= 1))
    throw new Error(`fault rate must be from 0 to 1, got ${r.rate}`);
}

/** The active rules and the counts of what they injected. */
export class Faults {
  private rules: Array<FaultRule & { used: number; skipped: number }> = [];
  private readonly random: () => number;
  readonly injected: Record<string, number> = {};

  constructor(seed: number, rules: FaultRule[] = []) {
    this.random = rng(seed * 977 + 5);
    this.set(rules);
  }

  /** Replaces the rules. */
  set(rules: FaultRule[]): void {
    for (const r of rules) validateRule(r);
    this.rules = rules.map((r) => ({ ...r, used: 0, skipped: 0 }));
  }

  /** The rules in force. */
  list(): FaultRule[] {
    return this.rules.map(({ used: _used, skipped: _skipped, ...r }) => r);
  }

  /** The fault to inject into this request, if any (first matching rule that fires). */
  choose(method: string, path: string): FaultRule | undefined {
    for (const r of this.rules) {
      if (r.method && r.method !== method) continue;
      if (r.path && !path.startsWith(r.path)) continue;
      if (r.times !== undefined && r.used >= r.times) continue;
      if (r.skipped < (r.skip ?? 0)) {
        r.skipped++;
        continue;
      }
      if (this.random() >= (r.rate ?? 1)) continue;
      r.used++;
      this.injected[r.kind] = (this.injected[r.kind] ?? 0) + 1;
      return r;
    }
    return undefined;
  }
}
