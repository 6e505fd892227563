/**
 * DirectoryUserSettings, dynamic front-end: the serialized shim and the `pulumi.dynamic.Resource`
 * class. The implementation is `resources/directory-user-settings.ts`.
 */
import * as pulumi from "@pulumi/pulumi";
import type { DirectoryUserSettingsArgs, UserFlag } from "../resources/directory-user-settings";
import { shim } from "./shim";

export type { DirectoryUserSettingsArgs } from "../resources/directory-user-settings";

/** The serialized provider: loads the implementation by the package's own name. */
export const directoryUserSettingsProvider = shim("pulumi-secops/resources/directory-user-settings");

/**
 * The managed flags of one directory user. The resource id is the directory user's id.
 *
 * ```ts
 * new DirectoryUserSettings("ada", { directoryUserId: "du-123", needsChatOpsWelcome: false });
 * ```
 */
export class DirectoryUserSettings extends pulumi.dynamic.Resource {
  /** The directory user's id. */
  declare readonly directoryUserId: pulumi.Output<string>;
  /** Current value of needsChatOpsWelcome. */
  declare readonly needsChatOpsWelcome: pulumi.Output<boolean>;
  /** Current value of chatOpsOnboardingUser. */
  declare readonly chatOpsOnboardingUser: pulumi.Output<boolean>;
  /** Current value of credentialsExposed. */
  declare readonly credentialsExposed: pulumi.Output<boolean>;
  /** The user's email address. */
  declare readonly email: pulumi.Output<string>;
  /** The user's display name. */
  declare readonly displayName: pulumi.Output<string>;
  /** The user's team. */
  declare readonly teamId: pulumi.Output<string>;
  /** The managed flags' values before this resource took over (restored on destroy if asked). */
  declare readonly previousValues: pulumi.Output<Partial<Record<UserFlag, boolean | null>>>;

  constructor(name: string, args: DirectoryUserSettingsArgs, opts?: pulumi.CustomResourceOptions) {
    super(
      directoryUserSettingsProvider,
      name,
      // Seed every output key (only keys present in the props become outputs); spread so the
      // caller's args object is never mutated.
      {
        needsChatOpsWelcome: undefined,
        chatOpsOnboardingUser: undefined,
        credentialsExposed: undefined,
        ...args,
        email: undefined,
        displayName: undefined,
        teamId: undefined,
        previousValues: undefined,
      },
      opts,
      "secops",
      "DirectoryUserSettings",
    );
  }
}
