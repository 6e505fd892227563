/** getIdentity: who the API key is, with its role. */
import * as pulumi from "@pulumi/pulumi";
import type { Identity } from "../client/types";
import { functionClient, type FunctionOptions, type InputFields } from "./common";

/** The identity and role behind the configured API key (GET /v1/auth/me). */
export async function getIdentity(opts?: FunctionOptions): Promise<Identity> {
  return functionClient(opts).getIdentity();
}

/** {@link getIdentity} as an Output, usable with other Outputs and during preview. */
export function getIdentityOutput(
  opts?: pulumi.Input<InputFields<FunctionOptions>>,
): pulumi.Output<Identity> {
  return pulumi.output(opts ?? {}).apply((o) => getIdentity(o as FunctionOptions));
}
