/** The secops provider resource (`pulumi:providers:secops`): one per team. */
import * as pulumi from "@pulumi/pulumi";
import { argNames, checkArgs, withDefaults } from "./utilities";

/** Arguments of {@link Provider}. */
export interface ProviderArgs {
  /**
   * The team's API key (kept secret). An explicit provider takes it from here only (a fallback is how a
   * typo writes into another team): without it, preview fails. Only the default provider reads
   * `secops:apiKey`, then SECOPS_API_KEY.
   */
  apiKey?: pulumi.Input<string>;
  /** The API's base URL. Default: stack config `secops:baseUrl` (default provider), then SECOPS_BASE_URL. */
  baseUrl?: pulumi.Input<string>;
}

/**
 * An explicit secops provider: each instance has its own key and connection pool, so one program
 * manages many teams (pass it as the `provider` option of resources and invokes).
 *
 * ```ts
 * const client1 = new Provider("client-1", { apiKey: cfg.requireSecret("client1Key") });
 * const me = getIdentityOutput({ provider: client1 }); // and { provider: client1 } on each resource
 * ```
 */
export class Provider extends pulumi.ProviderResource {
  /** The package name: the provider's type is `pulumi:providers:secops`. */
  static readonly __pulumiType = "secops";

  /** Whether `obj` is a secops Provider (also one made by another copy of this SDK). */
  static override isInstance(obj: unknown): obj is Provider {
    return (
      (obj as { __pulumiType?: string } | null)?.__pulumiType === `pulumi:providers:${Provider.__pulumiType}`
    );
  }

  /** The API's base URL. */
  declare readonly baseUrl: pulumi.Output<string | undefined>;

  constructor(name: string, args: ProviderArgs = {}, opts: pulumi.ResourceOptions = {}) {
    checkArgs(args, argNames<ProviderArgs>({ apiKey: true, baseUrl: true }), "secops.Provider", name);
    super(
      Provider.__pulumiType,
      name,
      {
        apiKey: args?.apiKey === undefined ? undefined : pulumi.secret(args.apiKey),
        baseUrl: args?.baseUrl,
      },
      withDefaults(opts),
    );
  }
}
