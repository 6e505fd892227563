/** One live object, one resource: every run's Check sees all of a provider's declarations. */
import type { CheckFailure } from "@pulumi/pulumi/dynamic";

/** The input the dynamic classes give the URN in (the dynamic host's Check is not told it). */
export const URN_INPUT = "__secopsUrn";

/**
 * Which resource (URN) of one provider instance declares which object (a rule's field and search, a
 * directory user) in this run. The same URN checked again (a replace, Create's re-check) is no second one.
 */
export class Declarations {
  readonly #byKey = new Map<string, string>();
  readonly #byUrn = new Map<string, string>();
  /** Every URN that declared each object, refused ones included. */
  readonly #contenders = new Map<string, Set<string>>();

  /** Records that `urn` declares `key`; the URN already declaring it, if any (`urn` then only contends). */
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
   * Throws `refusal(other)` when another resource declared `key` in this run, refused or not. Creates
   * ask at start and again before writing: the engine still runs Checks while creates run.
   */
  refuseContender(key: string, urn: string | undefined, refusal: (other: string) => Error): void {
    const other = urn ? [...(this.#contenders.get(key) ?? [])].find((u) => u !== urn) : undefined;
    if (other !== undefined) throw refusal(other);
  }
}

/** A passed check's result, refused with `duplicate`'s failure when another resource declares `key`. */
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
