/**
 * What a resource implementation needs from the front-end that runs it: the client of its provider
 * instance and a way to warn. The dynamic front-end has one instance per process (configured by the
 * dynamic host); the native plugin has one per configured provider, so two teams never share a
 * client, a cache or a warning.
 */
import type * as pulumi from "@pulumi/pulumi";
import type { SecOpsClient } from "../../client/client";

/** One provider instance as a resource implementation sees it. */
export interface ResourceContext {
  /** The client of this provider instance (its own key, its own pool). */
  client(): Promise<SecOpsClient>;
  /** Shows `message` once per provider instance for `key`. */
  warn(key: string, message: string): void;
  /** The URN of the resource the current call is about, when the front-end knows it. */
  urn?(): string | undefined;
  /**
   * True once the provider's process is ending (SIGTERM, its engine gone): what a call answers may
   * reach no one. Not after the engine's Cancel, which still records what calls answer.
   */
  readonly stopping?: boolean;
}

/**
 * The operations of a resource implementation, typed against Pulumi's dynamic-provider interface;
 * check also takes the URN of the resource (the front-end's, else the context's).
 */
export type ResourceImplementation<Inputs, Outputs> = Required<
  Pick<pulumi.dynamic.ResourceProvider<Inputs, Outputs>, "diff" | "create" | "read" | "update" | "delete">
> & {
  check(olds: unknown, news: unknown, urn?: string): Promise<pulumi.dynamic.CheckResult<Inputs>>;
};
