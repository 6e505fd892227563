/**
 * What a resource implementation needs from the front-end that runs it, per provider instance (one
 * per dynamic host process; one per configured provider in the plugin, so teams never share a client).
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
  /** How messages name this provider instance (`the secops provider "client1"`). */
  describe?(): string;
  /**
   * The team writes go to: the key's team, looked up in this process (a failed lookup refuses the
   * write, naming the cause), and proven to be the provider's team when its key changed.
   */
  writeTeam?(client: SecOpsClient): Promise<string>;
  /** True once the process is ending (SIGTERM, engine gone; not Cancel): an answer may reach no one. */
  readonly stopping?: boolean;
}

/** An implementation's operations, typed by Pulumi's dynamic interface; check also takes the URN. */
export type ResourceImplementation<Inputs, Outputs> = Required<
  Pick<pulumi.dynamic.ResourceProvider<Inputs, Outputs>, "diff" | "create" | "read" | "update" | "delete">
> & {
  check(olds: unknown, news: unknown, urn?: string): Promise<pulumi.dynamic.CheckResult<Inputs>>;
};
