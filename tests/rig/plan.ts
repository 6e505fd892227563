/**
 * Planning a runner step: Check and Diff through the host for each declared resource, deletes for
 * what is no longer declared. One resource's failing Check fails its own step only.
 */
import type { DiffAnswer, ProviderProcess } from "./host";
import type { DeclaredResource } from "./program";
import type { ProviderRef } from "./providers";
import { refuseHeldImports } from "./conflicts";
import { pool } from "./pool";
import { errorText, type State, type StateResource } from "./state";

/** What a step does. */
export type Op =
  | "create"
  | "update"
  | "replace"
  | "delete"
  | "same"
  | "drift"
  | "gone"
  | "import"
  | "check-failed"
  | "diff-failed";

/** The provider process serving a resource (see ProviderSet). */
export type Resolve = (ref: ProviderRef) => Promise<ProviderProcess>;

/** One step of a run. */
export interface Step {
  op: Op;
  urn: string;
  type: string;
  name: string;
  /** Changed properties (update, replace, drift), e.g. `enabled: true → false`. */
  changes: string[];
  ok: boolean;
  error?: string;
}

export const visible = (o: Record<string, unknown>) =>
  Object.fromEntries(Object.entries(o).filter(([k]) => k !== "__provider"));
const fmt = (v: unknown) => JSON.stringify(v);

/**
 * Plans every declared resource, then deletes for resources no longer declared. The Checks and Diffs
 * of different resources are independent: up to `parallel` run at once (the plan keeps the order).
 * A program that imports an object another resource holds is refused whole, before any request.
 */
export async function planSteps(
  resolve: Resolve,
  declared: DeclaredResource[],
  state: State,
  parallel = 16,
): Promise<Planned[]> {
  refuseHeldImports(declared, state);
  const byUrn = new Map(state.resources.map((r) => [r.urn, r]));
  const wanted = new Set(declared.map((d) => d.urn));
  const olds = declared.map((d) => {
    // Known by its own URN, else by the first alias the state holds (the engine's order).
    const aliased = d.aliases?.find((a) => byUrn.has(a) && !wanted.has(a));
    const old = byUrn.get(d.urn) ?? (aliased ? byUrn.get(aliased) : undefined);
    if (old && old.urn !== d.urn) wanted.add(old.urn);
    return old;
  });
  const planned: Planned[] = new Array(declared.length);
  await pool(parallel, [...declared.keys()], async (i) => {
    planned[i] = await planOne(resolve, declared[i], olds[i]);
  });
  for (const r of state.resources) {
    if (!wanted.has(r.urn))
      planned.push({
        op: "delete",
        step: { op: "delete", urn: r.urn, type: r.type, name: r.name, changes: [], ok: true },
        old: r,
      });
  }
  return planned;
}

/** A step refused while planning (a failed Check, an import that does not match, a provider that failed). */
function refused(step: Step, op: "check-failed" | "import", error: string): Planned {
  return { op: "refused", step: { ...step, op, ok: false, error } };
}

async function planOne(
  resolve: Resolve,
  d: DeclaredResource,
  old: StateResource | undefined,
): Promise<Planned> {
  const step: Step = { ...describe(d), op: "create", changes: [], ok: true };
  let host: ProviderProcess;
  let checked: Awaited<ReturnType<ProviderProcess["check"]>>;
  try {
    host = await resolve(d);
    if (!old && d.importId) return await planImport(host, d, d.importId);
    checked = await host.check(d.urn, old?.inputs ?? {}, d.inputs);
  } catch (err) {
    // One resource's failure (e.g. its provider's config) fails its step only.
    return refused(step, "check-failed", errorText(err));
  }
  if (checked.failures.length) return refused(step, "check-failed", failureText(checked.failures));
  const inputs = checked.inputs;
  if (!old) return { op: "create", step, declared: d, inputs };
  let diff: DiffAnswer;
  try {
    diff = await host.diff(old.id, d.urn, old.outputs, inputs, old.inputs);
  } catch (err) {
    // A Diff the provider refuses (e.g. an object of another team) fails this resource's step only:
    // nothing was to be updated, the comparison itself failed.
    return { op: "refused", step: { ...step, op: "diff-failed", ok: false, error: errorText(err) } };
  }
  if (!diff.changes && !diff.replaces.length) {
    // Found by an alias: the state's record moves to the new URN (and type), nothing is sent.
    if (old.urn !== d.urn)
      return { op: "same", step: { ...step, op: "same" }, moved: { declared: d, inputs, old } };
    return { op: "same", step: { ...step, op: "same" } };
  }
  // The provider's detailed diff names what changed; else input-only settings (e.g. adoptExisting)
  // have no output to compare with.
  const detailed = Object.keys(diff.detailedDiff);
  const keys = detailed.length
    ? detailed
    : diff.replaces.length
      ? diff.replaces
      : Object.keys(visible(inputs)).filter((k) => k in old.outputs);
  const changes = changed(pick(visible(old.outputs), keys), pick(visible(inputs), keys));
  if (!diff.replaces.length)
    return { op: "update", step: { ...step, op: "update", changes }, declared: d, inputs, old };
  return {
    op: "replace",
    step: { ...step, op: "replace", changes },
    declared: d,
    inputs,
    old,
    deleteBeforeReplace: diff.deleteBeforeReplace,
  };
}

/** Check failures as one text: `property: reason`, or the reason alone for none (the provider's). */
const failureText = (failures: Array<{ property: string; reason: string }>) =>
  failures.map((f) => (f.property ? `${f.property}: ${f.reason}` : f.reason)).join("; ");

/**
 * The `import` resource option, as the engine does it: Read with the id alone, then Check the
 * program's inputs against what was read and Diff them; any difference fails the import (nothing is
 * changed), so adopting an object never silently rewrites it.
 */
async function planImport(host: ProviderProcess, d: DeclaredResource, id: string): Promise<Planned> {
  const step: Step = { ...describe(d), op: "import", changes: [], ok: true };
  const read = await host.read(id, d.urn, {}, {});
  if (!read.id) return refused(step, "import", `import: no ${d.type} with id ${id} exists`);
  const checked = await host.check(d.urn, read.inputs, d.inputs);
  if (checked.failures.length) return refused(step, "check-failed", failureText(checked.failures));
  const diff = await host.diff(read.id, d.urn, read.properties, checked.inputs, read.inputs);
  if (diff.changes) {
    const keys = Object.keys(diff.detailedDiff);
    const changes = changed(pick(visible(read.properties), keys), pick(visible(checked.inputs), keys));
    const error = `import: the existing ${d.type} ${id} differs from the program's inputs (${changes.join(", ")}); make the program match it, then import again`;
    return { op: "refused", step: { ...step, changes, ok: false, error } };
  }
  return {
    op: "import",
    step,
    declared: d,
    inputs: checked.inputs,
    imported: { id: read.id, outputs: read.properties },
  };
}

type Bag = Record<string, unknown>;

/** A planned step with what applying it needs, by operation. */
export type Planned =
  | { op: "create"; step: Step; declared: DeclaredResource; inputs: Bag }
  | { op: "update"; step: Step; declared: DeclaredResource; inputs: Bag; old: StateResource }
  | {
      op: "replace";
      step: Step;
      declared: DeclaredResource;
      inputs: Bag;
      old: StateResource;
      deleteBeforeReplace: boolean;
    }
  | { op: "delete"; step: Step; old: StateResource }
  | {
      op: "import";
      step: Step;
      declared: DeclaredResource;
      inputs: Bag;
      imported: { id: string; outputs: Bag };
    }
  | { op: "same"; step: Step; moved?: { declared: DeclaredResource; inputs: Bag; old: StateResource } }
  | { op: "refused"; step: Step };

export function describe(d: { urn: string; type: string; name: string }) {
  return { urn: d.urn, type: d.type, name: d.name };
}

function pick(o: Record<string, unknown>, keys: string[]): Record<string, unknown> {
  return Object.fromEntries(keys.map((k) => [k, o[k]]));
}

export function changed(before: Record<string, unknown>, after: Record<string, unknown>): string[] {
  const keys = [...new Set([...Object.keys(before), ...Object.keys(after)])];
  return keys
    .filter((k) => fmt(before[k]) !== fmt(after[k]))
    .map((k) => `${k}: ${fmt(before[k])} → ${fmt(after[k])}`);
}
