/**
 * Planning a runner step: Check and Diff through the host for each declared resource, deletes for
 * what is no longer declared. One resource's failing Check fails its own step only.
 */
import type { DynamicProviderHost } from "./host";
import type { DeclaredResource } from "./program";
import { errorText, type State, type StateResource } from "./state";

/** What a step does. */
export type Op = "create" | "update" | "replace" | "delete" | "same" | "drift" | "gone" | "check-failed";

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
  host: DynamicProviderHost,
  declared: DeclaredResource[],
  state: State,
): Promise<Planned[]> {
  const planned: Planned[] = [];
  for (const d of declared)
    planned.push(
      await planOne(
        host,
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
  host: DynamicProviderHost,
  d: DeclaredResource,
  old: StateResource | undefined,
): Promise<Planned> {
  const step: Step = { ...describe(d), op: "create", changes: [], ok: true };
  let checked: Awaited<ReturnType<DynamicProviderHost["check"]>>;
  try {
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
  const diff = await host.diff(old.id, d.urn, old.outputs, checked.inputs);
  step.op = diff.replaces.length ? "replace" : diff.changes ? "update" : "same";
  // Input-only settings (e.g. adoptExisting) have no output to compare with.
  const keys = diff.replaces.length
    ? diff.replaces
    : Object.keys(visible(checked.inputs)).filter((k) => k in old.outputs);
  if (step.op !== "same")
    step.changes = changed(pick(visible(old.outputs), keys), pick(visible(checked.inputs), keys));
  return { step, declared: d, inputs: checked.inputs, old, deleteBeforeReplace: diff.deleteBeforeReplace };
}

/** A planned step with what applying it needs. */
export interface Planned {
  step: Step;
  declared?: DeclaredResource;
  inputs?: Record<string, unknown>;
  old?: StateResource;
  deleteBeforeReplace?: boolean;
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
