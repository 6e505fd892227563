/** Directory users, their group assignments, licenses and canonical-cluster members. */
import { z } from "zod";
import {
  fields,
  optArrayOf,
  optBool,
  optEnum,
  optInt,
  optObject,
  optString,
  optStrings,
  optTimestamp,
} from "./common";
import { EMAIL_DIRECTIONS } from "../types";

/** Known values of a group rule's search type (the spec lists none; open). */
export const GROUP_RULE_SEARCH_TYPES = [] as const;

export const groupAssignmentSchema = z
  .looseObject({
    ...fields(
      "id group teamId groupId overriddenByUserId overriddenByUserIdentifier groupName groupSlug",
      optString,
    ),
    ...fields("groupRuleSearch groupRuleSearchField", optString),
    ...fields("enabled overriddenByUser groupContainmentEnabled groupChatOpsEnabled", optBool),
    ...fields("groupSourceSystemUpdates groupAlwaysNotify", optBool),
    createdAt: optTimestamp,
    groupRuleSearchType: optEnum(GROUP_RULE_SEARCH_TYPES),
  })
  .describe("The fields every group assignment carries (of a user or of an endpoint).");
export const userGroupAssignmentSchema = groupAssignmentSchema
  .extend({ directoryUserId: optString })
  .describe("A group assignment of a directory user.");
export const endpointGroupAssignmentSchema = groupAssignmentSchema
  .extend({ endpointId: optString })
  .describe("A group assignment of an endpoint.");

export const licenseSchema = z
  .looseObject(fields("licenseId licenseName productId integrationPlatform", optString))
  .describe("A license assigned by the directory integration.");

export const clusterMemberSchema = z
  .looseObject({
    ...fields("id displayLabel integrationId integrationPlatform name operatingSystem", optString),
    ...fields("managed live", optBool),
    ...fields("createdAt updatedAt", optTimestamp),
  })
  .describe("A member of a canonical cluster (a preview: at most five when the count exceeds five).");

/** `id` is required: nothing can be managed without it. Fields the name does not explain are described. */
export const directoryUserSchema = z
  .looseObject({
    id: z.string(),
    ...fields("displayName teamId integrationId directoryId name phoneNumber previousPhoneNumber", optString),
    ...fields("title email managerDirectoryId managerEmail domain department username", optString),
    canonicalId: optString.describe(
      "When set, this row is a duplicate source and points to the canonical representative row.",
    ),
    verifiedPhoneNumber: optString,
    ...fields("additionalEmails roles", optStrings),
    allEmails: optStrings.describe("Primary plus additional addresses."),
    ...fields(
      "createdAt lastCredentialExposure lastCheckedForCredentialExposures smsConsentReceivedAt",
      optTimestamp,
    ),
    ...fields("smsInviteLastSentAt updatedAt passwordLastChangedAt lastSignInAt", optTimestamp),
    ...fields("credentialsExposed groupContainmentEnabled groupChatOpsEnabled enabled vip", optBool),
    containable: optBool.describe("Deprecated; alias of managed; use containment-dialog logic instead."),
    groupSourceSystemUpdates: optBool.describe("All groups allow outbound updates to the source product."),
    groupsSynced: optBool.describe("User has had its first round of group checks."),
    nhi: optBool.describe("Non-human identity (service account)."),
    ...fields("financial technical external contained smsInviteOptOut administrator", optBool),
    managed: optBool.describe("Managed by an integration."),
    needsChatOpsWelcome: optBool.describe("Needs the chat operations welcome message."),
    chatOpsOnboardingUser: optBool.describe("In the chat operations onboarding group."),
    ...fields("numberCredentialExposures smsInviteAttempts", optInt),
    canonicalClusterMemberCount: optInt.describe(
      "Count of child rows in the same canonical cluster (canonical_id equals the root), excluding the root.",
    ),
    groups: optArrayOf(userGroupAssignmentSchema),
    licenses: optArrayOf(licenseSchema).describe("Licenses assigned by the directory integration."),
    canonicalClusterMembers: optArrayOf(clusterMemberSchema).describe(
      "Preview of other integration-backed rows in the cluster; at most five children when the count exceeds five; null when there are none.",
    ),
    raw: optObject.describe("Raw data from the directory source."),
    emailDirection: optEnum(EMAIL_DIRECTIONS).describe(
      "Direction when the user is associated with an email detection.",
    ),
  })
  .describe("A directory user (identity) as the API returns it.");
/** A list of users (assumed GET /v1/directory): a bare array or `{ data: [...] }`. */
export const directoryUserListSchema = z.union([
  z.array(directoryUserSchema),
  z.looseObject({ data: z.array(directoryUserSchema) }).transform((o) => o.data),
]);

/** Unknown keys are rejected (typos name the field). */
export const directoryUserUpdateSchema = z
  .strictObject({
    needsChatOpsWelcome: z.boolean().optional().describe("Needs the chat operations welcome message."),
    chatOpsOnboardingUser: z.boolean().optional().describe("In the chat operations onboarding group."),
    credentialsExposed: z.boolean().optional().describe("Whether credentials have been exposed."),
  })
  .describe("The three flags PATCH /v1/directory/{id} accepts.");
