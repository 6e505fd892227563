/**
 * Pulumi's markers (an unknown preview input, a secret's signature): `@pulumi/pulumi/runtime/rpc`'s
 * constants, typed from it so a change fails the build. Not imported: that module loads the whole
 * program SDK, which the plugin bundle must not contain (scripts/bundle-plugin.js refuses it).
 */
import type { specialSecretSig, specialSigKey, unknownValue } from "@pulumi/pulumi/runtime/rpc";

/** The engine's value for an input not known during preview. */
export const UNKNOWN: typeof unknownValue = "04da6b54-80e4-46f7-96ec-b56ff0331ba9";

/** The key of a signature object (Pulumi's `sig.Key`). */
export const SIG_KEY: typeof specialSigKey = "4dabf18193072939515e22adb298388d";

/** The signature of a secret (Pulumi's `sig.Secret`): `{ [SIG_KEY]: SECRET_SIG, value }`. */
export const SECRET_SIG: typeof specialSecretSig = "1b47061264138c4ac30d75fd1eb44270";
