/**
 * DirectoryUserSettings' implementation: manages any subset of a directory user's three flags. Only
 * the flags set in the inputs are managed: an unset flag is never written and never diffed. Shared by
 * both front-ends (`dynamic/` and `native/`); `provider` is what the dynamic shim loads.
 */
import type * as pulumi from "@pulumi/pulumi";
import type { SecOpsClient } from "../../client/client";
import { ErrorCodes, SecOpsApiError, SecOpsInputError, isSecOpsError } from "../../client/errors";
import { isDotSegment } from "../../client/ids";
import type { DirectoryUser } from "../../client/types";
import type { ResourceContext, ResourceImplementation } from "../framework/context";
import { checkInputs, replacedBy, type ResourceDefinition } from "../framework/definition";
import { slug } from "../framework/names";
import {
  assertTeam,
  cannotImport,
  definedOnly,
  explainForbidden,
  isPendingId,
  isUnknown,
  teamOf,
} from "../framework/runtime";
import { Declarations, declaredOnce } from "../framework/declarations";
import { dynamicImplementation } from "../framework/shim-target";

/** The flags this resource can manage. */
export const USER_FLAGS = ["needsChatOpsWelcome", "chatOpsOnboardingUser", "credentialsExposed"] as const;
/** One managed flag. */
export type UserFlag = (typeof USER_FLAGS)[number];

/** Inputs after check. */
export interface DirectoryUserSettingsInputs extends Partial<Record<UserFlag, boolean>> {
  directoryUserId: string;
  restoreOnDelete: boolean;
}

/** Outputs stored in state. `previousValues` has one key per managed flag (null: not readable). */
export interface DirectoryUserSettingsOutputs extends Record<UserFlag, boolean | null> {
  directoryUserId: string;
  email: string | null;
  displayName: string | null;
  teamId: string | null;
  previousValues: Partial<Record<UserFlag, boolean | null>>;
  restoreOnDelete: boolean;
}

const managed = (inputs: Partial<Record<UserFlag, unknown>>) =>
  USER_FLAGS.filter((f) => inputs[f] !== undefined && inputs[f] !== null);

function outputs(
  user: DirectoryUser,
  previousValues: DirectoryUserSettingsOutputs["previousValues"],
  restoreOnDelete: boolean,
): DirectoryUserSettingsOutputs {
  return {
    directoryUserId: user.id,
    needsChatOpsWelcome: user.needsChatOpsWelcome ?? null,
    chatOpsOnboardingUser: user.chatOpsOnboardingUser ?? null,
    credentialsExposed: user.credentialsExposed ?? null,
    email: user.email ?? null,
    displayName: user.displayName ?? null,
    teamId: user.teamId ?? null,
    previousValues,
    restoreOnDelete,
  };
}

/** Reads the user, or undefined when this API offers no read route (strict-spec). */
async function readUser(client: SecOpsClient, id: string): Promise<DirectoryUser | undefined> {
  try {
    return await client.getDirectoryUser(id);
  } catch (err) {
    if (isSecOpsError(err, ErrorCodes.UNSUPPORTED)) return undefined;
    throw err;
  }
}

async function patch(
  client: SecOpsClient,
  id: string,
  flags: Partial<Record<UserFlag, boolean>>,
): Promise<DirectoryUser> {
  try {
    return await client.updateDirectoryUser(id, flags);
  } catch (err) {
    throw await explainForbidden(client, err);
  }
}

const pick = (from: Partial<Record<UserFlag, unknown>>, flags: readonly UserFlag[]) =>
  Object.fromEntries(flags.map((f) => [f, from[f]])) as Partial<Record<UserFlag, boolean>>;

/** DirectoryUserSettings, declared once (see ./definition.ts for what is made of it). */
export const definition: ResourceDefinition<DirectoryUser> = {
  name: "DirectoryUserSettings",
  token: "secops:index:DirectoryUserSettings",
  module: "directory-user-settings",
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
    needsChatOpsWelcome: {
      type: "boolean",
      description: "Whether the user needs the chat-operations welcome message. Unset: not managed.",
    },
    chatOpsOnboardingUser: {
      type: "boolean",
      description: "Whether the user is in the chat-operations onboarding group. Unset: not managed.",
    },
    credentialsExposed: {
      type: "boolean",
      description: "Whether the user's credentials are marked exposed. Unset: not managed.",
    },
    restoreOnDelete: {
      type: "boolean",
      default: false,
      description:
        "On destroy, put back the values the managed flags had before this resource took over. Default false. Needs the assumed GET route to read them.",
    },
  },
  outputs: {
    directoryUserId: { type: "string", required: true, description: "The directory user's id." },
    needsChatOpsWelcome: { type: "boolean", description: "Current value of needsChatOpsWelcome." },
    chatOpsOnboardingUser: { type: "boolean", description: "Current value of chatOpsOnboardingUser." },
    credentialsExposed: { type: "boolean", description: "Current value of credentialsExposed." },
    email: { type: "string", description: "The user's email address." },
    displayName: { type: "string", description: "The user's display name." },
    teamId: { type: "string", description: "The user's team." },
    previousValues: {
      type: "object",
      valuesOf: "boolean",
      required: true,
      description:
        "The managed flags' values before this resource took over (restored on destroy if asked); null where they could not be read.",
    },
    restoreOnDelete: {
      type: "boolean",
      required: true,
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
    if (managed(news).length === 0)
      failures.push({
        property: "needsChatOpsWelcome",
        reason: `set at least one of ${USER_FLAGS.join(", ")}`,
      });
    return failures;
  },
  // Importing a user manages all three flags at their current values.
  importInputs: (o) =>
    definedOnly({
      directoryUserId: o.directoryUserId,
      ...Object.fromEntries(USER_FLAGS.map((f) => [f, o[f]])),
    }),
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
    fields: Object.fromEntries(USER_FLAGS.map((f) => [f, (u: DirectoryUser) => u[f] ?? null])),
    advice: {
      drifted: "pulumi up --refresh sets the declared flags again",
      deleted:
        "the user no longer exists: remove the resource from the program, or pulumi state delete '{urn}'",
    },
  },
};

/** Why a second resource managing one directory user is refused. */
export const duplicateUserReason = (other: string, user: string) =>
  `directory user ${JSON.stringify(user)} is already managed by ${other} under the same secops ` +
  "provider: two resources setting one user's flags undo each other on every up. Manage each user " +
  "in one DirectoryUserSettings (a renamed resource keeps its user with the aliases option: " +
  "aliases: [its old URN])";

/** Checks inputs without network: one failure per problem, named by property. */
export async function checkUserSettings(
  news: unknown,
): Promise<pulumi.dynamic.CheckResult<DirectoryUserSettingsInputs>> {
  const { inputs, failures } = checkInputs(definition, news);
  return failures.length
    ? { inputs: inputs as unknown as DirectoryUserSettingsInputs, failures }
    : { inputs: inputs as unknown as DirectoryUserSettingsInputs };
}

/** The implementation for one provider instance. */
export class DirectoryUserSettingsImpl implements ResourceImplementation<
  DirectoryUserSettingsInputs,
  DirectoryUserSettingsOutputs
> {
  /** Which resource manages which user in this run. */
  readonly #declared = new Declarations();
  /**
   * Users a create or an import took over in this run, with that resource's URN where known: another
   * resource leaving the stack does not restore their flags (see HvaAutomationRuleImpl's #takenOver).
   */
  readonly #imported = new Map<string, string | undefined>();

  constructor(private readonly ctx: ResourceContext) {}

  /** Checks the inputs; a second resource of this provider managing the same user is refused. */
  async check(
    _olds: unknown,
    news: unknown,
    urn = this.ctx.urn?.(),
  ): Promise<pulumi.dynamic.CheckResult<DirectoryUserSettingsInputs>> {
    const checked = await checkUserSettings(news);
    const user = checked.inputs?.directoryUserId;
    const key = typeof user === "string" && !isUnknown(user) ? user : undefined;
    const refused = declaredOnce(this.#declared, key, urn, checked.failures, (other) => ({
      property: "directoryUserId",
      reason: duplicateUserReason(other, key!),
    }));
    return refused ? { ...checked, failures: refused } : checked;
  }

  async diff(
    id: string,
    olds: DirectoryUserSettingsOutputs,
    news: DirectoryUserSettingsInputs,
  ): Promise<pulumi.dynamic.DiffResult> {
    await this.sameTeamIfKnown(id, olds);
    const replaces = replacedBy(definition, olds as never, news as never);
    // The old user is restored (if asked) before the new one is taken over.
    if (replaces.length) return { changes: true, replaces, deleteBeforeReplace: true };
    const now = managed(news);
    const before = Object.keys(olds.previousValues ?? {}).sort();
    const changes =
      now.some((f) => isUnknown(news[f]) || news[f] !== olds[f]) ||
      now.slice().sort().join() !== before.join() ||
      (news.restoreOnDelete ?? false) !== (olds.restoreOnDelete ?? false);
    return { changes, replaces: [], deleteBeforeReplace: false };
  }

  async create(
    inputs: DirectoryUserSettingsInputs,
  ): Promise<pulumi.dynamic.CreateResult<DirectoryUserSettingsOutputs>> {
    const other = this.#declared.contender(inputs.directoryUserId, this.ctx.urn?.());
    if (other)
      throw new SecOpsInputError("directoryUserId", duplicateUserReason(other, inputs.directoryUserId));
    // Every create takes the user's flags over: a resource leaving the stack in this run (renamed
    // without aliases, or the user moved) must not restore them afterwards (see delete). Where the
    // front-end does not tell the URN (the dynamic host's create) the two cannot be told apart.
    const urn = this.ctx.urn?.();
    if (urn) this.#imported.set(inputs.directoryUserId, urn);
    const client = await this.ctx.client();
    const flags = managed(inputs);
    const before = await readUser(client, inputs.directoryUserId);
    if (!before && inputs.restoreOnDelete) {
      throw new SecOpsApiError(
        ErrorCodes.UNSUPPORTED,
        `restoreOnDelete needs the values ${inputs.directoryUserId} has now, but this API offers no way to read a directory user (GET /v1/directory/{id}); remove restoreOnDelete or use an API that has the route`,
        { field: "restoreOnDelete" },
      );
    }
    const previousValues = Object.fromEntries(flags.map((f) => [f, before ? (before[f] ?? null) : null]));
    const user = await patch(client, inputs.directoryUserId, pick(inputs, flags));
    return { id: user.id, outs: outputs(user, previousValues, inputs.restoreOnDelete) };
  }

  /**
   * Refresh (with the last outputs) or import (`props` undefined): an imported user's three flags
   * are all managed, at their current values, which are also the values to restore.
   */
  async read(
    id: string,
    props?: DirectoryUserSettingsOutputs,
  ): Promise<pulumi.dynamic.ReadResult<DirectoryUserSettingsOutputs>> {
    const client = await this.ctx.client();
    await assertTeam(client, props?.teamId, `directory user ${id}`);
    let user: DirectoryUser | undefined;
    try {
      user = await readUser(client, id);
    } catch (err) {
      if (isSecOpsError(err, ErrorCodes.NOT_FOUND)) return {};
      throw err;
    }
    if (!user && !props) throw cannotImport(`directory user ${id}`, undefined);
    if (!user) {
      this.ctx.warn(
        "user-read",
        "secops: the API offers no route to read directory users; state was kept as it is and drift detection is unavailable for DirectoryUserSettings",
      );
      return { id, props };
    }
    if (!props) {
      this.#imported.set(id, this.ctx.urn?.());
      const current = Object.fromEntries(USER_FLAGS.map((f) => [f, user[f] ?? null]));
      return { id, props: outputs(user, current, false) };
    }
    return { id, props: outputs(user, props.previousValues ?? {}, props.restoreOnDelete ?? false) };
  }

  async update(
    id: string,
    olds: DirectoryUserSettingsOutputs,
    news: DirectoryUserSettingsInputs,
  ): Promise<pulumi.dynamic.UpdateResult<DirectoryUserSettingsOutputs>> {
    const client = await this.ctx.client();
    await assertTeam(client, olds?.teamId, `directory user ${id}`);
    const flags = managed(news);
    // A newly managed flag's previous value is the last value seen before we took it over.
    const previousValues = Object.fromEntries(
      flags.map((f) => [f, f in (olds.previousValues ?? {}) ? olds.previousValues[f] : olds[f]]),
    );
    const changed = flags.filter((f) => news[f] !== olds[f]);
    if (changed.length === 0)
      return { outs: { ...olds, previousValues, restoreOnDelete: news.restoreOnDelete ?? false } };
    const user = await patch(client, id, pick(news, changed));
    return { outs: outputs(user, previousValues, news.restoreOnDelete ?? false) };
  }

  async delete(id: string, props: DirectoryUserSettingsOutputs): Promise<void> {
    // An interrupted create only PATCHed flags (idempotent): nothing to remove, the next create re-sends it.
    if (isPendingId(id) || !props.restoreOnDelete) return;
    if (this.#imported.has(id) && (this.#imported.get(id) ?? "") !== (this.ctx.urn?.() ?? "-")) {
      this.ctx.warn(
        `user-kept-${id}`,
        `secops: directory user ${id}'s flags were not restored: another resource of this stack took the user over in this run and manages it now; only this resource left the stack`,
      );
      return;
    }
    const restore = Object.fromEntries(
      Object.entries(props.previousValues ?? {}).filter(([, v]) => typeof v === "boolean"),
    );
    if (Object.keys(restore).length === 0) return;
    const client = await this.ctx.client();
    await assertTeam(client, props.teamId, `directory user ${id}`);
    await patch(client, id, restore).catch((err: unknown) => {
      if (!isSecOpsError(err, ErrorCodes.NOT_FOUND)) throw err;
    });
  }

  /**
   * Diff (also run by preview, maybe without a key) checks the team when the key's team can be had,
   * as HvaAutomationRule's does; when it cannot, the operation that follows checks it before sending.
   */
  private async sameTeamIfKnown(id: string, olds: DirectoryUserSettingsOutputs): Promise<void> {
    if (typeof olds?.teamId !== "string" || olds.teamId === "") return;
    const client = await this.ctx.client().catch(() => undefined);
    const team = client && (await teamOf(client).catch(() => undefined));
    if (team !== undefined && client) await assertTeam(client, olds.teamId, `directory user ${id}`);
  }
}

/** The implementation the dynamic shim loads (`pulumi-secops/resources/directory-user-settings`). */
export const provider = dynamicImplementation((ctx) => new DirectoryUserSettingsImpl(ctx));
