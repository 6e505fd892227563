/**
 * What a step refuses before it sends anything: two resources with one URN (the engine's own error),
 * and an import of an object that another resource of the stack already holds. One object held by two
 * resources is deleted under one of them when the other goes (issue 32 point 4), so adopting it twice
 * is refused, naming both resources.
 */
import type { DeclaredResource } from "./program";
import type { State } from "./state";

/** The kind of object a type manages (its resource's name), the same for both front-ends' types. */
const kind = (type: string) => type.split(":").pop() ?? type;

/** Pulumi's message for a second resource with the same URN. */
export const duplicateUrnMessage = (urn: string) =>
  `Duplicate resource URN '${urn}'; try giving it a unique name`;

/** Why importing `id` as `urn` is refused: `holder` already holds that object. */
export const heldMessage = (urn: string, id: string, holder: string) =>
  `import of ${id} as ${urn} refused: ${holder} already holds it; an object held by two resources is ` +
  "deleted under one of them when the other goes";

/** Throws the engine's error for the first URN the program declares twice. */
export function refuseDuplicateUrns(declared: readonly DeclaredResource[]): void {
  const seen = new Set<string>();
  for (const d of declared) {
    if (seen.has(d.urn)) throw new Error(duplicateUrnMessage(d.urn));
    seen.add(d.urn);
  }
}

/**
 * The resource of the state (or pending deletion) other than `urn` that holds object `id` of `type`'s
 * kind, if any.
 */
export function holderOf(state: State, type: string, id: string, urn: string): string | undefined {
  const all = [...state.resources, ...(state.pendingDeletes ?? [])];
  return all.find((r) => r.id === id && r.urn !== urn && kind(r.type) === kind(type))?.urn;
}

/**
 * Throws when a declared resource that the state does not hold yet imports an object that another
 * resource holds: one of the state's, or another declared resource importing the same id.
 */
export function refuseHeldImports(declared: readonly DeclaredResource[], state: State): void {
  const inState = new Set(state.resources.map((r) => r.urn));
  const adopting = declared.filter(
    (d) => d.importId && !inState.has(d.urn) && !d.aliases?.some((a) => inState.has(a)),
  );
  const problems: string[] = [];
  const named = new Set<string>(); // a pair of declared resources is named once
  for (const d of adopting) {
    const id = d.importId!;
    const stateHolder = holderOf(state, d.type, id, d.urn);
    const other = adopting.find((o) => o !== d && o.importId === id && kind(o.type) === kind(d.type));
    const holder = stateHolder ?? other?.urn;
    if (!holder || (!stateHolder && named.has(d.urn))) continue;
    problems.push(heldMessage(d.urn, id, holder));
    named.add(d.urn).add(holder);
  }
  if (problems.length) throw new Error(problems.join("\n"));
}
