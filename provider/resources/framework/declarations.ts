/**
 * One live object, one resource: which resource of one provider instance declares which object (a
 * rule's field and search, a directory user) in this run. Every resource of a provider passes
 * through that provider's Check in every preview and up, and the engine starts each provider (the
 * plugin per provider, the dynamic host per program) afresh for each run, so a second resource
 * declaring an object another one declares is refused before anything is written. The same URN
 * checked again (a replace, the plugin's check before a create) is the same declaration.
 */
import type { CheckFailure } from "@pulumi/pulumi/dynamic";

/** The input the dynamic classes give the URN in (the dynamic host's Check is not told it). */
export const URN_INPUT = "__secopsUrn";

export class Declarations {
  readonly #byKey = new Map<string, string>();
  readonly #byUrn = new Map<string, string>();
  /** Every URN that declared each object, refused ones included. */
  readonly #contenders = new Map<string, Set<string>>();

  /**
   * Records that `urn` declares the object `key`; the URN of the other resource that already
   * declares it, if any (then it is only recorded as a contender). Without a URN nothing can be told
   * apart.
   */
  declare(key: string, urn: string | undefined): string | undefined {
    if (!urn) return undefined;
    const contenders = this.#contenders.get(key) ?? new Set<string>();
    this.#contenders.set(key, contenders.add(urn));
    const other = this.#byKey.get(key);
    if (other !== undefined && other !== urn) return other;
    const previous = this.#byUrn.get(urn);
    if (previous !== undefined && previous !== key) {
      this.#byKey.delete(previous);
      this.#contenders.get(previous)?.delete(urn);
    }
    this.#byKey.set(key, urn);
    this.#byUrn.set(urn, key);
    return undefined;
  }

  /**
   * Throws `refusal(other)` when another resource declared the object `key` in this run, refused or
   * not. A create asks when it starts and again before it adopts or writes: the engine checks
   * resources one after another while creates already run, so the resource refused at its Check may
   * come after the one whose create is starting.
   */
  refuseContender(key: string, urn: string | undefined, refusal: (other: string) => Error): void {
    const other = urn ? [...(this.#contenders.get(key) ?? [])].find((u) => u !== urn) : undefined;
    if (other !== undefined) throw refusal(other);
  }
}

/**
 * A check's result, refused with `duplicate`'s failure when another resource of the provider already
 * declares the object `key` (undefined: not known yet). A check that failed records nothing.
 */
export function declaredOnce<R extends { failures?: readonly CheckFailure[] }>(
  declarations: Declarations,
  checked: R,
  key: string | undefined,
  urn: string | undefined,
  duplicate: (other: string) => CheckFailure,
): R {
  if (checked.failures?.length || key === undefined) return checked;
  const other = declarations.declare(key, urn);
  return other === undefined ? checked : { ...checked, failures: [duplicate(other)] };
}
