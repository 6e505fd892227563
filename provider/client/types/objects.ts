/** The identity, HVA rules, timeline comments, error bodies and counts as the API returns them. */
import type { HvaSearchField, Role } from "./enums";

/** The identity behind an API key, with its role for the current team (GET /v1/auth/me). */
export interface Identity {
  /** User email address. */
  email: string;
  /** First name plus optional last name if set, otherwise the email. */
  displayName: string;
  /** User id. */
  id: string;
  /** Role for the current team. */
  role: Role;
  /** Currently active team id. */
  teamId: string;
  /** Parent team id. */
  parentTeamId: string;
  /** Service provider flag. */
  serviceProvider?: boolean | null;
  /** Onboarding completion status. */
  completedOnboarding?: boolean | null;
  /** Whether the user belongs to a service provider parent team. */
  hasServiceProviderParent?: boolean | null;
}

/** A high-value-asset automation rule as the API returns it. */
export interface HvaRule {
  id: string;
  teamId?: string | null;
  enabled?: boolean | null;
  searchField?: HvaSearchField | null;
  search?: string | null;
}

/** An image attachment of a timeline comment. */
export interface Attachment {
  id?: string | null;
  filename?: string | null;
  contentType?: string | null;
  data?: string | null;
  size?: number | null;
  createdAt?: string | null;
}

/** A timeline comment as the API returns it. `content` is empty when `deleted` is true. */
export interface TimelineComment {
  /** Comment id. */
  id: string;
  /** Author display name; falls back to email if the user was deleted or the name cannot be found. */
  authorName?: string | null;
  /** Author user id; null if the user was deleted. */
  authorId?: string | null;
  /** Text; empty if deleted. */
  content?: string | null;
  /** Creation time. */
  createdAt?: string | null;
  /** Last update time. */
  updatedAt?: string | null;
  /** Soft-deleted flag. */
  deleted?: boolean | null;
  /** Image attachments. */
  attachments?: Attachment[] | null;
}

/** The API's error body. NestJS-style services may send `message` as a list. */
export interface ErrorBody {
  message?: string | string[] | null;
  statusCode?: number | null;
}

/** The answer of POST /v1/integration/count. */
export interface IntegrationCount {
  totalCount: number;
}
