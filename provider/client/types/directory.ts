/** Directory users and what they carry: group assignments, licenses, canonical-cluster members. */

/** A directory user (identity) as the API returns it. */
export interface DirectoryUser {
  /** Unique id. */
  id: string;
  /** Display name. */
  displayName?: string | null;
  /** Owning team. */
  teamId?: string | null;
  /** Integration the user came from. */
  integrationId?: string | null;
  /** Directory-specific identifier. */
  directoryId?: string | null;
  /** Full name. */
  name?: string | null;
  /** Phone number. */
  phoneNumber?: string | null;
  /** Previous phone number if changed. */
  previousPhoneNumber?: string | null;
  /** Job title. */
  title?: string | null;
  /** Email address. */
  email?: string | null;
  /** Directory id of the manager. */
  managerDirectoryId?: string | null;
  /** Email of the manager. */
  managerEmail?: string | null;
  /** Domain the user belongs to. */
  domain?: string | null;
  /** Department. */
  department?: string | null;
  /** When set, this row is a duplicate source and points to the canonical representative row. */
  canonicalId?: string | null;
  /** Account username. */
  username?: string | null;
  /** Verified phone number. */
  verifiedPhoneNumber?: string | null;
  /** Additional email addresses. */
  additionalEmails?: string[] | null;
  /** Primary plus additional addresses. */
  allEmails?: string[] | null;
  /** Roles assigned. */
  roles?: string[] | null;
  /** Creation time. */
  createdAt?: string | null;
  /** Last credential exposure. */
  lastCredentialExposure?: string | null;
  /** Last exposure check. */
  lastCheckedForCredentialExposures?: string | null;
  /** SMS consent time. */
  smsConsentReceivedAt?: string | null;
  /** Last SMS invite. */
  smsInviteLastSentAt?: string | null;
  /** Last update. */
  updatedAt?: string | null;
  /** Password last changed. */
  passwordLastChangedAt?: string | null;
  /** Last sign-in. */
  lastSignInAt?: string | null;
  /** Whether credentials have been exposed. */
  credentialsExposed?: boolean | null;
  /** Deprecated; alias of managed; use containment-dialog logic instead. */
  containable?: boolean | null;
  /** All groups on the user allow containment. */
  groupContainmentEnabled?: boolean | null;
  /** All groups allow chat operations. */
  groupChatOpsEnabled?: boolean | null;
  /** All groups allow outbound updates to the source product. */
  groupSourceSystemUpdates?: boolean | null;
  /** User has had its first round of group checks. */
  groupsSynced?: boolean | null;
  /** Account enabled. */
  enabled?: boolean | null;
  /** Marked VIP. */
  vip?: boolean | null;
  /** Non-human identity (service account). */
  nhi?: boolean | null;
  /** Has financial access. */
  financial?: boolean | null;
  /** Has technical access. */
  technical?: boolean | null;
  /** Is external. */
  external?: boolean | null;
  /** Needs the chat operations welcome message. */
  needsChatOpsWelcome?: boolean | null;
  /** Currently contained. */
  contained?: boolean | null;
  /** Opted out of SMS invites. */
  smsInviteOptOut?: boolean | null;
  /** Administrative privileges. */
  administrator?: boolean | null;
  /** Managed by an integration. */
  managed?: boolean | null;
  /** In the chat operations onboarding group. */
  chatOpsOnboardingUser?: boolean | null;
  /** Count of exposures. */
  numberCredentialExposures?: number | null;
  /** Number of SMS invites sent. */
  smsInviteAttempts?: number | null;
  /** Count of child rows in the same canonical cluster (canonical_id equals the root), excluding the root. */
  canonicalClusterMemberCount?: number | null;
  /** Groups assigned. */
  groups?: UserGroupAssignment[] | null;
  /** Licenses assigned by the directory integration. */
  licenses?: License[] | null;
  /** Preview of other integration-backed rows in the cluster; at most five children when the count exceeds five; null when there are none. */
  canonicalClusterMembers?: ClusterMember[] | null;
  /** Raw data from the directory source. */
  raw?: Record<string, unknown> | null;
  /** Direction when the user is associated with an email detection. */
  emailDirection?: "sender" | "receiver" | (string & {}) | null;
}

/** The fields every group assignment carries (of a user or of an endpoint). */
export interface GroupAssignment {
  id?: string | null;
  group?: string | null;
  teamId?: string | null;
  groupId?: string | null;
  overriddenByUserId?: string | null;
  overriddenByUserIdentifier?: string | null;
  groupName?: string | null;
  groupSlug?: string | null;
  groupRuleSearch?: string | null;
  groupRuleSearchField?: string | null;
  enabled?: boolean | null;
  overriddenByUser?: boolean | null;
  groupContainmentEnabled?: boolean | null;
  groupChatOpsEnabled?: boolean | null;
  groupSourceSystemUpdates?: boolean | null;
  groupAlwaysNotify?: boolean | null;
  createdAt?: string | null;
  groupRuleSearchType?: (string & {}) | null;
}

/** A group assignment of a directory user. */
export interface UserGroupAssignment extends GroupAssignment {
  directoryUserId?: string | null;
}

/** A group assignment of an endpoint. */
export interface EndpointGroupAssignment extends GroupAssignment {
  endpointId?: string | null;
}

/** A license assigned by the directory integration. */
export interface License {
  licenseId?: string | null;
  licenseName?: string | null;
  productId?: string | null;
  integrationPlatform?: string | null;
}

/** A member of a canonical cluster (a preview: at most five when the count exceeds five). */
export interface ClusterMember {
  id?: string | null;
  displayLabel?: string | null;
  integrationId?: string | null;
  integrationPlatform?: string | null;
  name?: string | null;
  operatingSystem?: string | null;
  managed?: boolean | null;
  live?: boolean | null;
  createdAt?: string | null;
  updatedAt?: string | null;
}
