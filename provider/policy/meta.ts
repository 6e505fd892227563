/** What every policy of the pack carries besides its check: its framework tag. */
import type { PolicyComplianceFramework } from "@pulumi/policy";
import { VERSION } from "../version";

/** The pack's name, as the engine shows it (`pulumi-secops@v<version>`). */
export const PACK_NAME = "pulumi-secops";

/**
 * The framework tag (`@pulumi/policy` 1.18+): the pack's own guardrails, versioned with the package;
 * `reference` is the policy's section of the package's docs/policy.md, `specification` the rule it
 * enforces, in one sentence.
 */
export function framework(policy: string, specification: string): PolicyComplianceFramework {
  return {
    name: "pulumi-secops guardrails",
    version: VERSION,
    reference: `docs/policy.md#${policy}`,
    specification,
  };
}
