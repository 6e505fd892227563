/** What every policy of the pack carries besides its check: the pack's tag and its framework tag. */
import type { ResourceValidationPolicy, StackValidationPolicy } from "@pulumi/policy";
import { VERSION } from "../version";

/** The pack's name, as the engine shows it (`pulumi-secops@v<version>`). */
export const PACK_NAME = "pulumi-secops";

/** A policy as declared: `specification` is the rule it enforces, in one sentence. */
type Declared<P> = Omit<P, "framework"> & { specification: string; tags: string[] };

/** A policy of the pack: tagged `secops`, with the pack's framework tag and its docs/policy.md section. */
export function guardrail<P extends ResourceValidationPolicy | StackValidationPolicy>(
  declared: Declared<P>,
): P {
  const { specification, tags, ...policy } = declared;
  const reference = `docs/policy.md#${policy.name}`;
  const framework = { name: "pulumi-secops guardrails", version: VERSION, reference, specification };
  return { ...policy, tags: ["secops", ...tags], framework } as unknown as P;
}
