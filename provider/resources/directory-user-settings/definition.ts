/** DirectoryUserSettings, declared once (see ../framework/definition.ts): any of a user's three flags. */
import { isDotSegment } from "../../client/ids";
import type { DirectoryUser } from "../../client/types";
import { slug } from "../framework/names";
import { defineResource, type InputsOf, type OutputsOf, type ResourceSpec } from "../framework/definition";

/** The flags this resource can manage, each an optional input and an output (its current value). */
const FLAGS = {
  needsChatOpsWelcome: "Whether the user needs the chat-operations welcome message.",
  chatOpsOnboardingUser: "Whether the user is in the chat-operations onboarding group.",
  credentialsExposed: "Whether the user's credentials are marked exposed.",
} as const;

/** One flag this resource can manage. */
export type UserFlag = keyof typeof FLAGS;
/** The flags this resource can manage. */
export const USER_FLAGS = Object.keys(FLAGS) as readonly UserFlag[];

/** A boolean property per flag, described by `describe(what the flag means, its name)`. */
const flags = (describe: (text: string, flag: UserFlag) => string) =>
  Object.fromEntries(USER_FLAGS.map((f) => [f, { type: "boolean", description: describe(FLAGS[f], f) }])) as {
    [K in UserFlag]: { type: "boolean"; description: string };
  };

/** The resource: what the schema, both SDKs, Check, Diff, import, `List` and drift are made of. */
export const definition = defineResource({
  name: "DirectoryUserSettings",
  description:
    "The managed flags of one directory user (any subset of the three; at least one). Only the flags set are managed: an unset flag is never written and never diffed.",
  id: "The directory user's id. An import (the `import` option) manages all three flags at their current values.",
  example: `DirectoryUserSettings("ada", { directoryUserId: "du-123", needsChatOpsWelcome: false })`,
  inputs: {
    directoryUserId: {
      type: "string",
      required: true,
      maxLength: 1024,
      replaceOnChange: true,
      description:
        "The directory user's id. Changing it replaces the resource (the old user is restored first when restoreOnDelete is set).",
    },
    ...flags((text) => `${text} Unset: not managed.`),
    restoreOnDelete: {
      type: "boolean",
      default: false,
      description:
        "On destroy, put back the values the managed flags had before this resource took over. Default false. Needs the assumed GET route to read them.",
    },
  },
  outputs: {
    directoryUserId: { type: "string", required: true, api: "id", description: "The directory user's id." },
    ...flags((_, flag) => `Current value of ${flag}.`),
    email: { type: "string", description: "The user's email address." },
    displayName: { type: "string", description: "The user's display name." },
    teamId: { type: "string", description: "The user's team." },
    previousValues: {
      type: "object",
      valuesOf: "boolean",
      required: true,
      api: false,
      description:
        "The managed flags' values before this resource took over (restored on destroy if asked); null where they could not be read.",
    },
    restoreOnDelete: {
      type: "boolean",
      required: true,
      api: false,
      description: "Whether destroy restores previousValues.",
    },
  },
  refine: (news) => {
    const id = news.directoryUserId;
    const failures = [];
    if (typeof id === "string" && isDotSegment(id))
      failures.push({
        property: "directoryUserId",
        reason: "directoryUserId must not be . or .. (or decode to them): that would address another route",
      });
    if (USER_FLAGS.every((f) => news[f] === undefined || news[f] === null))
      failures.push({
        property: "needsChatOpsWelcome",
        reason: `set at least one of ${USER_FLAGS.join(", ")}`,
      });
    return failures;
  },
  // An import manages all three flags at their current values (the default: inputs read from the API).
  read: (client, id) => client.getDirectoryUser(id),
  list: {
    query: {},
    fetch: (client) => client.listDirectoryUsers(),
    nameOf: (user) => slug(user.email?.split("@")[0] || user.name || user.displayName || user.id, "user"),
    matches: () => true,
  },
  drift: {
    live: "read",
    managedOnly: true,
    advice: {
      drifted: "pulumi up --refresh sets the declared flags again",
      deleted:
        "the user no longer exists: remove the resource from the program, or pulumi state delete '{urn}'",
    },
  },
} as const satisfies ResourceSpec<DirectoryUser>);

/** Inputs after check. */
export type DirectoryUserSettingsInputs = InputsOf<typeof definition>;

/** Outputs stored in state. `previousValues` has one key per managed flag (null: not readable). */
export type DirectoryUserSettingsOutputs = OutputsOf<typeof definition>;
