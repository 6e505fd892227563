/**
 * What the report is given. What a stack manages, from a `pulumi stack export` document (version 3),
 * both front-ends' resources: encrypted secrets are never needed, as resources match by id and
 * encrypted values are not compared. And the ignore file: one rule id or search glob (matched against
 * the search) per line, each with its `# reason` (a hand-made rule kept out of the failure says why).
 */
import { readFileSync } from "node:fs";
import { basename } from "node:path";
import type { HvaRule } from "../client/types";
import { globRegExp } from "../resources/hva-automation-rule/glob";
import { SECRET_SIG, SIG_KEY } from "../resources/framework/markers";
import { resourceOf } from "../resources/framework/registry";
import { isDefaultProviderName } from "../resources/framework/names";

/** The kind of a managed object: its resource definition's `name`. */
export type ManagedKind = string;

/** One resource of the state, as the report needs it. */
export interface ManagedResource {
  kind: ManagedKind;
  urn: string;
  id: string;
  /** The team the resource recorded (`teamId` in its outputs), when it did. */
  teamId?: string;
  /** Its outputs; an encrypted secret is {@link ENCRYPTED}. */
  outputs: Record<string, unknown>;
  /** The URN of its explicit secops provider; absent when it uses the default provider. */
  provider?: string;
  /** Its type token as the state records it (native `secops:index:<Name>`, or the dynamic one). */
  type?: string;
}

/** The resources of one stack's export, and the stack's name as reports give it. */
export interface StackExport {
  /** `<project>/<stack>` from the export's URNs, or the file's name when it holds no resource. */
  name: string;
  resources: ManagedResource[];
}

/** Stands for a value `pulumi stack export` wrote encrypted. */
export const ENCRYPTED = Symbol("encrypted");

/** The kind of a resource type (native or dynamic), or undefined for a type the report does not cover. */
export const kindOf = (type: unknown): ManagedKind | undefined =>
  typeof type === "string" ? resourceOf(type)?.definition.name : undefined;

/** A mistake in what the report was given (a state or ignore file, the keys): the CLI's exit 2. */
export class DriftInputError extends Error {}

/** A value with secrets decoded: `--show-secrets` plaintext as its value, an encrypted one as ENCRYPTED. */
function decode(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(decode);
  if (value === null || typeof value !== "object") return value;
  const o = value as Record<string, unknown>;
  if (o[SIG_KEY] === SECRET_SIG) {
    if (typeof o.plaintext !== "string") return ENCRYPTED;
    try {
      return decode(JSON.parse(o.plaintext));
    } catch {
      return ENCRYPTED;
    }
  }
  return Object.fromEntries(Object.entries(o).map(([k, v]) => [k, decode(v)]));
}

/** An explicit secops provider's URN from a provider reference (`<urn>::<id>`); none for a default one. */
function explicitProvider(ref: unknown): string | undefined {
  if (typeof ref !== "string" || ref === "") return undefined;
  const parts = ref.split("::");
  const urn = parts.length > 4 ? parts.slice(0, 4).join("::") : ref;
  const [type, name] = urn.split("::").slice(2);
  if (type?.split("$").pop() !== "pulumi:providers:secops" || isDefaultProviderName(name ?? ""))
    return undefined;
  return urn;
}

/** A resource of the state as the report needs it; none for a type the report does not cover. */
function managed({ type, urn, id, outputs, provider: ref }: Record<string, unknown>): ManagedResource[] {
  const kind = kindOf(type);
  if (!kind || typeof urn !== "string" || typeof id !== "string" || id === "") return [];
  const decoded = decode(outputs);
  const outs = (decoded && typeof decoded === "object" ? decoded : {}) as Record<string, unknown>;
  const teamId = typeof outs.teamId === "string" && outs.teamId !== "" ? outs.teamId : undefined;
  const provider = explicitProvider(ref);
  const owner = provider ? { provider } : {};
  return [{ kind, urn, id, ...(teamId ? { teamId } : {}), outputs: outs, ...owner, type: type as string }];
}

/** The text (or bytes) of a file the user named; one that cannot be read is the user's mistake, named. */
export function readInput(path: string): string;
export function readInput(path: string, encoding: null): Buffer;
export function readInput(path: string, encoding: "utf8" | null = "utf8"): string | Buffer {
  try {
    return readFileSync(path, encoding);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    throw new DriftInputError(`${path}: ${code === "ENOENT" ? "no such file" : (err as Error).message}`);
  }
}

/** Reads the managed resources of a `pulumi stack export` document. */
export function readManaged(path: string): ManagedResource[] {
  return resourcesOf(stateDocument(path));
}

/**
 * Reads a stack's export: its managed resources and its name, `<project>/<stack>` as its URNs give them
 * (`urn:pulumi:<stack>::<project>::...`), or the file's name for an export that holds no resource.
 */
export function readStack(path: string): StackExport {
  const resources = stateDocument(path);
  const urn = resources.find((r) => typeof r?.urn === "string")?.urn as string | undefined;
  const [stack, project] = urn?.replace(/^urn:pulumi:/, "").split("::") ?? [];
  return {
    name: stack && project ? `${project}/${stack}` : basename(path),
    resources: resourcesOf(resources),
  };
}

/** The managed resources of a deployment's resource list. */
const resourcesOf = (resources: Array<Record<string, unknown>>) =>
  resources.flatMap((r) => (r && typeof r === "object" ? managed(r) : []));

/** The resource list of a `pulumi stack export` document (version 3); a mistake in it is named. */
function stateDocument(path: string): Array<Record<string, unknown>> {
  const text = readInput(path);
  let doc: Record<string, unknown>;
  try {
    doc = JSON.parse(text) as Record<string, unknown>;
  } catch (err) {
    throw new DriftInputError(`${path}: not JSON (${(err as Error).message})`);
  }
  if (!doc || typeof doc !== "object" || Array.isArray(doc))
    throw new DriftInputError(`${path}: not a state document`);
  if (!("deployment" in doc))
    throw new DriftInputError(
      `${path}: not a \`pulumi stack export\` document (no "deployment"); write one with \`pulumi stack export --file <path>\``,
    );
  if (doc.version !== 3)
    throw new DriftInputError(
      `${path}: deployment version ${JSON.stringify(doc.version)} is not supported (version 3, as \`pulumi stack export\` writes it)`,
    );
  const resources = (doc.deployment as { resources?: unknown } | undefined)?.resources ?? [];
  if (!Array.isArray(resources)) throw new DriftInputError(`${path}: deployment.resources is not a list`);
  return resources as Array<Record<string, unknown>>;
}

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
