/** getIdentity: who the API key is, with its role. */
import type * as pulumi from "@pulumi/pulumi";
import type { Identity } from "../client/types";
import type { FunctionDefinition } from "../resources/framework/definition";
import { functionClient, outputCall, sdk, type FunctionOptions, type InputFields } from "./common";

/** getIdentity, declared once (the schema and the native invoke are made of it). */
export const definition: FunctionDefinition = {
  name: "getIdentity",
  token: "secops:index:getIdentity",
  description: "The identity and role behind the provider's API key (GET /v1/auth/me).",
  outputs: {
    description: "The identity.",
    properties: {
      email: { type: "string", required: true, description: "User email address." },
      displayName: {
        type: "string",
        required: true,
        description: "First name plus optional last name if set, otherwise the email.",
      },
      id: { type: "string", required: true, description: "User id." },
      role: {
        type: "string",
        required: true,
        description: "Role for the current team: ADMIN, ANALYST or VIEWER (others are passed through).",
      },
      teamId: { type: "string", required: true, description: "Currently active team id." },
      parentTeamId: { type: "string", required: true, description: "Parent team id." },
      serviceProvider: { type: "boolean", description: "Service provider flag." },
      completedOnboarding: { type: "boolean", description: "Onboarding completion status." },
      hasServiceProviderParent: {
        type: "boolean",
        description: "Whether the user belongs to a service provider parent team.",
      },
    },
  },
  call: (client) => client.getIdentity(),
};

/** The identity and role behind the configured API key (GET /v1/auth/me). */
export async function getIdentity(opts?: FunctionOptions): Promise<Identity> {
  return functionClient(opts).getIdentity();
}

/** {@link getIdentity} as an Output, usable with other Outputs and during preview. */
export function getIdentityOutput(
  opts?: pulumi.Input<InputFields<FunctionOptions>>,
): pulumi.Output<Identity> {
  return sdk()
    .output(opts ?? {})
    .apply((o) => outputCall(() => getIdentity(o as FunctionOptions)));
}
