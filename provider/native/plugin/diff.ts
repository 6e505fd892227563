/**
 * The engine's detailed diff from an implementation's diff: which input changed and how (add,
 * delete, update; `_REPLACE` when it forces a replacement). Properties that are also outputs are
 * compared with the last outputs (so drift found by refresh shows), input-only ones with old inputs.
 */
import type * as pulumi from "@pulumi/pulumi";
import type * as providerPb from "@pulumi/pulumi/proto/provider_pb";
import { messages } from "./messages";
import type { Bag, NativeResource } from "./resources";
import { UNKNOWN } from "./wire";

type Kind = "ADD" | "DELETE" | "UPDATE";

const present = (v: unknown) => v !== undefined && v !== null;
const same = (a: unknown, b: unknown) => JSON.stringify(a) === JSON.stringify(b);

/** How each input changed between the old state and the new inputs. */
export function propertyChanges(
  type: NativeResource,
  olds: Bag,
  oldInputs: Bag,
  news: Bag,
): Map<string, Kind> {
  const kinds = new Map<string, Kind>();
  for (const k of type.inputs) {
    const now = news[k];
    const wasManaged = present(oldInputs[k] ?? type.defaults[k]);
    if (!present(now)) {
      if (wasManaged) kinds.set(k, "DELETE");
      continue;
    }
    const before =
      type.outputs.includes(k) && present(olds[k]) ? olds[k] : (oldInputs[k] ?? type.defaults[k]);
    if (!present(before)) kinds.set(k, "ADD");
    else if (now === UNKNOWN || !same(before, now)) kinds.set(k, "UPDATE");
  }
  return kinds;
}

/** The DiffResponse for an implementation's verdict. */
export function diffResponse(
  verdict: pulumi.dynamic.DiffResult,
  type: NativeResource,
  olds: Bag,
  oldInputs: Bag,
  news: Bag,
): providerPb.DiffResponse {
  const { provider } = messages();
  const res = new provider.DiffResponse();
  const { DiffChanges } = provider.DiffResponse;
  if (!verdict.changes) {
    res.setChanges(DiffChanges.DIFF_NONE);
    res.setHasdetaileddiff(true);
    return res;
  }
  const replaces = verdict.replaces ?? [];
  const kinds = propertyChanges(type, olds, oldInputs, news);
  for (const k of replaces) if (!kinds.has(k)) kinds.set(k, "UPDATE");
  res.setChanges(DiffChanges.DIFF_SOME);
  res.setReplacesList(replaces);
  res.setDeletebeforereplace(verdict.deleteBeforeReplace ?? false);
  res.setDiffsList([...kinds.keys()]);
  const K = provider.PropertyDiff.Kind;
  for (const [k, kind] of kinds) {
    const d = new provider.PropertyDiff();
    d.setKind(replaces.includes(k) ? K[`${kind}_REPLACE`] : K[kind]);
    d.setInputdiff(true);
    res.getDetaileddiffMap().set(k, d);
  }
  res.setHasdetaileddiff(kinds.size > 0);
  return res;
}
