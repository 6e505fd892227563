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

/** Fields shared by user and endpoint group assignments. */
export const groupAssignmentShape = {
  ...fields(
    "id group teamId groupId overriddenByUserId overriddenByUserIdentifier groupName groupSlug",
    optString,
  ),
  ...fields("groupRuleSearch groupRuleSearchField", optString),
  ...fields("enabled overriddenByUser groupContainmentEnabled groupChatOpsEnabled", optBool),
  ...fields("groupSourceSystemUpdates groupAlwaysNotify", optBool),
  createdAt: optTimestamp,
  groupRuleSearchType: optEnum(GROUP_RULE_SEARCH_TYPES),
};

/** A group assignment of a directory user. */
export const userGroupAssignmentSchema = z.looseObject({
  ...groupAssignmentShape,
  directoryUserId: optString,
});
/** A group assignment of an endpoint. */
export const endpointGroupAssignmentSchema = z.looseObject({
  ...groupAssignmentShape,
  endpointId: optString,
});

/** A license assigned by the directory integration. */
export const licenseSchema = z.looseObject(
  fields("licenseId licenseName productId integrationPlatform", optString),
);

/** A member of a canonical cluster (preview: at most five when the count exceeds five). */
export const clusterMemberSchema = z.looseObject({
  ...fields("id displayLabel integrationId integrationPlatform name operatingSystem", optString),
  ...fields("managed live", optBool),
  ...fields("createdAt updatedAt", optTimestamp),
});

/** A directory user. `id` is required: nothing can be managed without it. */
export const directoryUserSchema = z.looseObject({
  id: z.string(),
  ...fields(
    "displayName teamId integrationId directoryId name phoneNumber previousPhoneNumber title",
    optString,
  ),
  ...fields("email managerDirectoryId managerEmail domain department canonicalId username", optString),
  verifiedPhoneNumber: optString,
  ...fields("additionalEmails allEmails roles", optStrings),
  ...fields(
    "createdAt lastCredentialExposure lastCheckedForCredentialExposures smsConsentReceivedAt",
    optTimestamp,
  ),
  ...fields("smsInviteLastSentAt updatedAt passwordLastChangedAt lastSignInAt", optTimestamp),
  ...fields("credentialsExposed containable groupContainmentEnabled groupChatOpsEnabled", optBool),
  ...fields("groupSourceSystemUpdates groupsSynced enabled vip nhi financial technical external", optBool),
  ...fields(
    "needsChatOpsWelcome contained smsInviteOptOut administrator managed chatOpsOnboardingUser",
    optBool,
  ),
  ...fields("numberCredentialExposures smsInviteAttempts canonicalClusterMemberCount", optInt),
  groups: optArrayOf(userGroupAssignmentSchema),
  licenses: optArrayOf(licenseSchema),
  canonicalClusterMembers: optArrayOf(clusterMemberSchema),
  raw: optObject,
  emailDirection: optEnum(EMAIL_DIRECTIONS),
});
/** A list of users (assumed GET /v1/directory): a bare array or `{ data: [...] }`. */
export const directoryUserListSchema = z.union([
  z.array(directoryUserSchema),
  z.looseObject({ data: z.array(directoryUserSchema) }).transform((o) => o.data),
]);

/** The three flags PATCH /v1/directory/{id} accepts. Unknown keys are rejected (typos name the field). */
export const directoryUserUpdateSchema = z.strictObject({
  needsChatOpsWelcome: z.boolean().optional(),
  chatOpsOnboardingUser: z.boolean().optional(),
  credentialsExposed: z.boolean().optional(),
});
