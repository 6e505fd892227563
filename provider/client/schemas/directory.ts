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

export const groupAssignmentSchema = z
  .looseObject({
    ...fields(
      optString,
      "id group teamId groupId overriddenByUserId overriddenByUserIdentifier groupName groupSlug",
    ),
    ...fields(optString, "groupRuleSearch groupRuleSearchField"),
    ...fields(optBool, "enabled overriddenByUser groupContainmentEnabled groupChatOpsEnabled"),
    ...fields(optBool, "groupSourceSystemUpdates groupAlwaysNotify"),
    createdAt: optTimestamp,
    groupRuleSearchType: optEnum([]), // the spec lists no values: open
  })
  .describe("The fields every group assignment carries (of a user or of an endpoint).");
export const userGroupAssignmentSchema = groupAssignmentSchema
  .extend({ directoryUserId: optString })
  .describe("A group assignment of a directory user.");
export const endpointGroupAssignmentSchema = groupAssignmentSchema
  .extend({ endpointId: optString })
  .describe("A group assignment of an endpoint.");

export const licenseSchema = z
  .looseObject(fields(optString, "licenseId licenseName productId integrationPlatform"))
  .describe("A license assigned by the directory integration.");

export const clusterMemberSchema = z
  .looseObject({
    ...fields(optString, "id displayLabel integrationId integrationPlatform name operatingSystem"),
    ...fields(optBool, "managed live"),
    ...fields(optTimestamp, "createdAt updatedAt"),
  })
  .describe("A member of a canonical cluster (a preview: at most five when the count exceeds five).");

/** `id` is required: nothing can be managed without it. Fields the name does not explain are described. */
export const directoryUserSchema = z
  .looseObject({
    id: z.string(),
    ...fields(optString, "displayName teamId integrationId directoryId name phoneNumber previousPhoneNumber"),
    ...fields(optString, "title email managerDirectoryId managerEmail domain department username"),
    canonicalId: optString.describe(
      "When set, this row is a duplicate source and points to the canonical representative row.",
    ),
    verifiedPhoneNumber: optString,
    ...fields(optStrings, "additionalEmails roles"),
    allEmails: optStrings.describe("Primary plus additional addresses."),
    ...fields(
      optTimestamp,
      "createdAt lastCredentialExposure lastCheckedForCredentialExposures smsConsentReceivedAt",
    ),
    ...fields(optTimestamp, "smsInviteLastSentAt updatedAt passwordLastChangedAt lastSignInAt"),
    ...fields(optBool, "credentialsExposed groupContainmentEnabled groupChatOpsEnabled enabled vip"),
    containable: optBool.describe("Deprecated; alias of managed; use containment-dialog logic instead."),
    groupSourceSystemUpdates: optBool.describe("All groups allow outbound updates to the source product."),
    groupsSynced: optBool.describe("User has had its first round of group checks."),
    nhi: optBool.describe("Non-human identity (service account)."),
    ...fields(optBool, "financial technical external contained smsInviteOptOut administrator"),
    managed: optBool.describe("Managed by an integration."),
    needsChatOpsWelcome: optBool.describe("Needs the chat operations welcome message."),
    chatOpsOnboardingUser: optBool.describe("In the chat operations onboarding group."),
    ...fields(optInt, "numberCredentialExposures smsInviteAttempts"),
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
