/**
 * The engine's detailed diff: which input changed and how. Inputs that are also outputs are compared
 * with the last outputs (so drift found by refresh shows), input-only ones with the old inputs.
 */
import type * as providerPb from "@pulumi/pulumi/proto/provider_pb";
import { proto } from "./proto";
import type { Bag, NativeResource } from "./resources";
import { UNKNOWN } from "../../resources/framework/markers";

/** How a property changed. */
export type Kind = "ADD" | "DELETE" | "UPDATE";

const present = (v: unknown) => v !== undefined && v !== null;
const same = (a: unknown, b: unknown) => JSON.stringify(a) === JSON.stringify(b);

/** How each input changed; a property the implementation replaces is an update if nothing else changed it. */
export function propertyChanges(
  type: NativeResource,
  olds: Bag,
  oldInputs: Bag,
  news: Bag,
  replaces: readonly string[],
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
  for (const k of replaces) if (!kinds.has(k)) kinds.set(k, "UPDATE");
  return kinds;
}

/** A DiffResponse: each changed property's kind (`_REPLACE` for `replaces`); `inputDiff` for resources. */
export function diffResponse(
  kinds: ReadonlyMap<string, Kind>,
  {
    changes = kinds.size > 0,
    replaces = [] as readonly string[],
    deleteBeforeReplace = false,
    inputDiff = false,
  },
): providerPb.DiffResponse {
  const { provider } = proto();
  const K = provider.PropertyDiff.Kind;
  const { DIFF_SOME, DIFF_NONE } = provider.DiffResponse.DiffChanges;
  const res = new provider.DiffResponse()
    .setChanges(changes ? DIFF_SOME : DIFF_NONE)
    .setReplacesList([...replaces])
    .setDeletebeforereplace(deleteBeforeReplace)
    .setDiffsList([...kinds.keys()])
    .setHasdetaileddiff(!changes || kinds.size > 0);
  for (const [k, kind] of kinds) {
    const d = new provider.PropertyDiff().setKind(replaces.includes(k) ? K[`${kind}_REPLACE`] : K[kind]);
    res.getDetaileddiffMap().set(k, d.setInputdiff(inputDiff));
  }
  return res;
}
