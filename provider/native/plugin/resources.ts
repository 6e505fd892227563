/**
 * The native front-end's table of resources: token, the shared implementation, and the property
 * names the schema declares (a test checks schema.json, this table and the SDK agree).
 */
import type { ResourceContext, ResourceImplementation } from "../../resources/context";
import { HvaAutomationRuleImpl } from "../../resources/hva-automation-rule";
import { DirectoryUserSettingsImpl, USER_FLAGS } from "../../resources/directory-user-settings";

/** Property bags as they cross the wire. */
export type Bag = Record<string, unknown>;

/** One native resource type. */
export interface NativeResource {
  token: string;
  make(ctx: ResourceContext): ResourceImplementation<Bag, Bag>;
  /** Input property names. */
  inputs: readonly string[];
  /** Output property names. */
  outputs: readonly string[];
  /** The values Check gives inputs left unset (an unset input is no change from its default). */
  defaults: Readonly<Bag>;
  /** The inputs a program declares for an object read by import (its current values). */
  importInputs(outputs: Bag): Bag;
}

const defined = (o: Bag): Bag =>
  Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined && v !== null));

/** Every resource the plugin serves, by token. */
export const NATIVE_RESOURCES: Record<string, NativeResource> = {
  "secops:index:HvaAutomationRule": {
    token: "secops:index:HvaAutomationRule",
    make: (ctx) => new HvaAutomationRuleImpl(ctx) as never,
    inputs: ["field", "search", "enabled", "adoptExisting"],
    outputs: ["field", "search", "enabled", "teamId"],
    defaults: { enabled: true, adoptExisting: false },
    importInputs: (o) => defined({ field: o.field, search: o.search, enabled: o.enabled }),
  },
  "secops:index:DirectoryUserSettings": {
    token: "secops:index:DirectoryUserSettings",
    make: (ctx) => new DirectoryUserSettingsImpl(ctx) as never,
    inputs: ["directoryUserId", ...USER_FLAGS, "restoreOnDelete"],
    outputs: [
      "directoryUserId",
      ...USER_FLAGS,
      "email",
      "displayName",
      "teamId",
      "previousValues",
      "restoreOnDelete",
    ],
    defaults: { restoreOnDelete: false },
    // Importing a user manages all three flags at their current values.
    importInputs: (o) =>
      defined({
        directoryUserId: o.directoryUserId,
        ...Object.fromEntries(USER_FLAGS.map((f) => [f, o[f]])),
      }),
  },
};

/** The resource type of a URN (`urn:pulumi:stack::project::type::name`). */
export function typeOfUrn(urn: string): string {
  const parts = urn.split("::");
  return parts.length >= 4 ? (parts[2].split("$").pop() ?? "") : "";
}
