/** One live object, one resource: every run's Check sees all of a provider's declarations. */
import type { CheckFailure } from "@pulumi/pulumi/dynamic";
import { SecOpsInputError } from "../../client/errors";

/** The input the dynamic classes give the URN in (the dynamic host's Check is not told it). */
export const URN_INPUT = "__secopsUrn";

/**
 * Which resource (URN) of one provider instance declares which object (a rule's field and search, a
 * directory user) in this run. The same URN checked again (a replace, Create's re-check) is no second one.
 * Another is refused at `property`, for `reason(the URN declaring it, the object's key)`.
 */
export class Declarations {
  readonly #byKey = new Map<string, string>();
  /** The URNs that were in the stack's state when checked (Check had old inputs). */
  readonly #inState = new Set<string>();
  readonly #byUrn = new Map<string, string>();
  /** Every URN that declared each object, refused ones included. */
  readonly #contenders = new Map<string, Set<string>>();

  constructor(
    private readonly property: string,
    private readonly reason: (other: string, key: string) => string,
    /** Why a resource in the state is refused when a newcomer checked before it declares its object. */
    private readonly heldReason: (newcomer: string, key: string) => string = reason,
  ) {}

  /**
   * A passed check's result, recording that `urn` declares `key` (undefined: not known yet); refused
   * when another URN declares it (`urn` then only contends). A resource in the state (`inState`)
   * checked after a newcomer is refused naming the newcomer as the one to remove.
   */
  checked<R extends { failures?: readonly CheckFailure[] }>(
    checked: R,
    key: string | undefined,
    urn: string | undefined,
    inState = false,
  ): R {
    if (checked.failures?.length || key === undefined || !urn) return checked;
    const contenders = this.#contenders.get(key) ?? new Set<string>();
    this.#contenders.set(key, contenders.add(urn));
    if (inState) this.#inState.add(urn);
    const other = this.#byKey.get(key);
    if (other !== undefined && other !== urn) {
      // Checked after a newcomer, a resource of the state names the newcomer as the one to remove.
      const newcomer = inState && !this.#inState.has(other);
      const reason = newcomer ? this.heldReason(other, key) : this.reason(other, key);
      return { ...checked, failures: [{ property: this.property, reason }] };
    }
    const previous = this.#byUrn.get(urn);
    if (previous !== undefined && previous !== key) {
      this.#byKey.delete(previous);
      this.#contenders.get(previous)?.delete(urn);
    }
    this.#byKey.set(key, urn);
    this.#byUrn.set(urn, key);
    return checked;
  }

  /**
   * Throws SECOPS_INVALID_INPUT when another resource declared `key` in this run, refused or not.
   * Creates ask at start and again before writing: the engine still runs Checks while creates run.
   */
  /** Forgets that `urn` declares `key` (its check was refused after all): it refuses no one else. */
  withdraw(key: string, urn: string): void {
    if (this.#byKey.get(key) === urn) this.#byKey.delete(key);
    if (this.#byUrn.get(urn) === key) this.#byUrn.delete(urn);
  }

  /** The URN that declares `key` in this run (the dynamic host's create is not told its URN). */
  holder(key: string): string | undefined {
    return this.#byKey.get(key);
  }

  refuseContender(key: string, urn: string | undefined): void {
    const other = urn ? [...(this.#contenders.get(key) ?? [])].find((u) => u !== urn) : undefined;
    if (other !== undefined) throw new SecOpsInputError(this.property, this.reason(other, key));
  }
}
