/** The secops provider resource (`pulumi:providers:secops`): one per team. */
import * as pulumi from "@pulumi/pulumi";

/** Arguments of {@link Provider}. */
export interface ProviderArgs {
  /** The team's API key (kept secret). Default: stack config `secops:apiKey`, then SECOPS_API_KEY. */
  apiKey?: pulumi.Input<string>;
  /** The API's base URL. Default: stack config `secops:baseUrl`, then SECOPS_BASE_URL. */
  baseUrl?: pulumi.Input<string>;
}

/**
 * An explicit secops provider: each instance has its own key and connection pool, so one program
 * manages many teams (pass it as the `provider` option of resources and invokes).
 *
 * ```ts
 * const client1 = new Provider("client-1", { apiKey: cfg.requireSecret("client1Key") });
 * new HvaAutomationRule("dc", { field: "name", search: "dc-*" }, { provider: client1 });
 * ```
 */
export class Provider extends pulumi.ProviderResource {
  /** The API's base URL. */
  declare readonly baseUrl: pulumi.Output<string | undefined>;

  constructor(name: string, args: ProviderArgs = {}, opts: pulumi.ResourceOptions = {}) {
    super(
      "secops",
      name,
      { apiKey: args.apiKey === undefined ? undefined : pulumi.secret(args.apiKey), baseUrl: args.baseUrl },
      opts,
    );
  }
}
