/**
 * Planning a runner step: Check and Diff through the host for each declared resource, deletes for
 * what is no longer declared. One resource's failing Check fails its own step only.
 */
import type { ProviderProcess } from "./host";
import type { DeclaredResource } from "./program";
import type { ProviderRef } from "./providers";
import { errorText, type State, type StateResource } from "./state";

/** What a step does. */
export type Op =
  "create" | "update" | "replace" | "delete" | "same" | "drift" | "gone" | "import" | "check-failed";

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

/** Plans every declared resource, then deletes for resources no longer declared. */
export async function planSteps(
  resolve: Resolve,
  declared: DeclaredResource[],
  state: State,
): Promise<Planned[]> {
  const planned: Planned[] = [];
  for (const d of declared)
    planned.push(
      await planOne(
        resolve,
        d,
        state.resources.find((r) => r.urn === d.urn),
      ),
    );
  for (const r of state.resources) {
    if (!declared.some((d) => d.urn === r.urn))
      planned.push({
        step: { op: "delete", urn: r.urn, type: r.type, name: r.name, changes: [], ok: true },
        old: r,
      });
  }
  return planned;
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
    // One resource's failure (e.g. inputs over the gRPC message limit) fails its step only.
    return { step: { ...step, op: "check-failed", ok: false, error: errorText(err) }, declared: d, old };
  }
  if (checked.failures.length) {
    const error = checked.failures.map((f) => `${f.property}: ${f.reason}`).join("; ");
    return {
      step: { ...step, op: "check-failed", ok: false, error },
      declared: d,
      inputs: checked.inputs,
      old,
    };
  }
  if (!old) return { step, declared: d, inputs: checked.inputs, old };
  const diff = await host.diff(old.id, d.urn, old.outputs, checked.inputs, old.inputs);
  step.op = diff.replaces.length ? "replace" : diff.changes ? "update" : "same";
  // The provider's detailed diff names what changed; else input-only settings (e.g. adoptExisting)
  // have no output to compare with.
  const detailed = Object.keys(diff.detailedDiff);
  const keys = detailed.length
    ? detailed
    : diff.replaces.length
      ? diff.replaces
      : Object.keys(visible(checked.inputs)).filter((k) => k in old.outputs);
  if (step.op !== "same")
    step.changes = changed(pick(visible(old.outputs), keys), pick(visible(checked.inputs), keys));
  return { step, declared: d, inputs: checked.inputs, old, deleteBeforeReplace: diff.deleteBeforeReplace };
}

/**
 * The `import` resource option, as the engine does it: Read with the id alone, then Check the
 * program's inputs against what was read and Diff them; any difference fails the import (nothing is
 * changed), so adopting an object never silently rewrites it.
 */
async function planImport(host: ProviderProcess, d: DeclaredResource, id: string): Promise<Planned> {
  const step: Step = { ...describe(d), op: "import", changes: [], ok: true };
  const read = await host.read(id, d.urn, {}, {});
  if (!read.id)
    return { step: { ...step, ok: false, error: `import: no ${d.type} with id ${id} exists` }, declared: d };
  const checked = await host.check(d.urn, read.inputs, d.inputs);
  if (checked.failures.length) {
    const error = checked.failures.map((f) => `${f.property}: ${f.reason}`).join("; ");
    return { step: { ...step, op: "check-failed", ok: false, error }, declared: d };
  }
  const diff = await host.diff(read.id, d.urn, read.properties, checked.inputs, read.inputs);
  if (diff.changes) {
    const keys = Object.keys(diff.detailedDiff);
    step.changes = changed(pick(visible(read.properties), keys), pick(visible(checked.inputs), keys));
    const error = `import: the existing ${d.type} ${id} differs from the program's inputs (${step.changes.join(", ")}); make the program match it, then import again`;
    return { step: { ...step, ok: false, error }, declared: d };
  }
  return { step, declared: d, inputs: checked.inputs, imported: { id: read.id, outputs: read.properties } };
}

/** A planned step with what applying it needs. */
export interface Planned {
  step: Step;
  declared?: DeclaredResource;
  inputs?: Record<string, unknown>;
  old?: StateResource;
  deleteBeforeReplace?: boolean;
  /** For an import: the object read. */
  imported?: { id: string; outputs: Record<string, unknown> };
}

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
