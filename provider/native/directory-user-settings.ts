/** DirectoryUserSettings, native front-end: `secops:index:DirectoryUserSettings`, served by the plugin. */
import * as pulumi from "@pulumi/pulumi";
import type { DirectoryUserSettingsArgs, UserFlag } from "../resources/directory-user-settings";
import { argNames, requireInputs, withDefaults, type ResourceArgsSpec } from "./utilities";

export type { DirectoryUserSettingsArgs } from "../resources/directory-user-settings";

/** The arguments the constructor knows and requires (an unknown name is refused, never dropped). */
const ARGS: ResourceArgsSpec = {
  type: "secops.DirectoryUserSettings",
  known: argNames<DirectoryUserSettingsArgs>({
    directoryUserId: true,
    needsChatOpsWelcome: true,
    chatOpsOnboardingUser: true,
    credentialsExposed: true,
    restoreOnDelete: true,
  }),
  required: ["directoryUserId"],
};

/**
 * The managed flags of one directory user. The resource id is the directory user's id; an import
 * (`{ import: "<user id>" }`) manages all three flags at their current values.
 */
export class DirectoryUserSettings extends pulumi.CustomResource {
  /** The type token. */
  static readonly __pulumiType = "secops:index:DirectoryUserSettings";

  /** Whether `obj` is a DirectoryUserSettings (also one made by another copy of this SDK). */
  static override isInstance(obj: unknown): obj is DirectoryUserSettings {
    return (obj as { __pulumiType?: string } | null)?.__pulumiType === DirectoryUserSettings.__pulumiType;
  }

  /** The directory user's id. */
  declare readonly directoryUserId: pulumi.Output<string>;
  /** Current value of needsChatOpsWelcome. */
  declare readonly needsChatOpsWelcome: pulumi.Output<boolean | undefined>;
  /** Current value of chatOpsOnboardingUser. */
  declare readonly chatOpsOnboardingUser: pulumi.Output<boolean | undefined>;
  /** Current value of credentialsExposed. */
  declare readonly credentialsExposed: pulumi.Output<boolean | undefined>;
  /** The user's email address. */
  declare readonly email: pulumi.Output<string | undefined>;
  /** The user's display name. */
  declare readonly displayName: pulumi.Output<string | undefined>;
  /** The user's team. */
  declare readonly teamId: pulumi.Output<string | undefined>;
  /** The managed flags' values before this resource took over (restored on destroy if asked). */
  declare readonly previousValues: pulumi.Output<Partial<Record<UserFlag, boolean | null>>>;
  /** Whether destroy restores previousValues. */
  declare readonly restoreOnDelete: pulumi.Output<boolean>;

  /** Looks up an existing user's settings by id (no change is made). */
  static get(
    name: string,
    id: pulumi.Input<pulumi.ID>,
    opts?: pulumi.CustomResourceOptions,
  ): DirectoryUserSettings {
    return new DirectoryUserSettings(name, undefined as never, { ...opts, id });
  }

  constructor(name: string, args: DirectoryUserSettingsArgs, opts: pulumi.CustomResourceOptions = {}) {
    requireInputs(ARGS, name, args, opts);
    const outputsOnly = {
      email: undefined,
      displayName: undefined,
      teamId: undefined,
      previousValues: undefined,
    };
    const props = opts.id
      ? {
          directoryUserId: undefined,
          needsChatOpsWelcome: undefined,
          chatOpsOnboardingUser: undefined,
          credentialsExposed: undefined,
          restoreOnDelete: undefined,
          ...outputsOnly,
        }
      : {
          directoryUserId: args?.directoryUserId,
          needsChatOpsWelcome: args?.needsChatOpsWelcome,
          chatOpsOnboardingUser: args?.chatOpsOnboardingUser,
          credentialsExposed: args?.credentialsExposed,
          restoreOnDelete: args?.restoreOnDelete,
          ...outputsOnly,
        };
    super(DirectoryUserSettings.__pulumiType, name, props, withDefaults(opts));
  }
}
