/**
 * Handshake: the engine's first call (Pulumi 3.x engines since the protocol added it), and how it
 * learns what the provider supports. Its answers must match Configure's (./config-rpcs.ts answers
 * from the same {@link PROTOCOL}). After a successful Handshake the engine records these answers and
 * ignores Configure's flags; it also assumes the provider supports `preview` on Create and Update
 * (`pluginProtocol.supportsPreview: true` in the engine's provider_plugin.go), which this provider
 * does: a Create or Update with `preview` writes nothing.
 */
import type * as providerPb from "@pulumi/pulumi/proto/provider_pb";
import { messages } from "./messages";

/**
 * What this provider supports. Secrets: yes (a secret input stays secret in state). Resources: yes, as
 * the protocol requires of a provider that handshakes; no input of ours takes a resource, so a
 * reference sent as an input fails Check like any other value of the wrong type. Outputs, autonaming
 * configuration and non-UTF-8 byte strings: no.
 */
export const PROTOCOL = {
  acceptSecrets: true,
  acceptResources: true,
  acceptOutputs: false,
  supportsAutonamingConfiguration: false,
} as const;

export function handshake(_req: providerPb.ProviderHandshakeRequest): providerPb.ProviderHandshakeResponse {
  const { provider } = messages();
  return new provider.ProviderHandshakeResponse()
    .setAcceptSecrets(PROTOCOL.acceptSecrets)
    .setAcceptResources(PROTOCOL.acceptResources)
    .setAcceptOutputs(PROTOCOL.acceptOutputs)
    .setSupportsAutonamingConfiguration(PROTOCOL.supportsAutonamingConfiguration);
  // acceptsByteString (field 6) is left at its default, false: the stubs of @pulumi/pulumi 3.248 (the
  // lowest version this package supports) do not have the field yet.
}
