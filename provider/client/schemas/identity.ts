/** The authenticated identity (spec: PublicAuthMeResponse, GET /v1/auth/me). */
import { z } from "zod";
import { openEnum, optBool } from "./common";

/** Roles the spec lists. The set is open: other values are kept. */
export const ROLES = ["ADMIN", "ANALYST", "VIEWER"] as const;

/** Schema of the authenticated identity. Every field the spec marks required is required here. */
export const identitySchema = z.looseObject({
  email: z.string(),
  displayName: z.string(),
  id: z.string(),
  role: openEnum(ROLES),
  teamId: z.string(),
  parentTeamId: z.string(),
  serviceProvider: optBool,
  completedOnboarding: optBool,
  hasServiceProviderParent: optBool,
});

/** The identity behind an API key, with its role for the current team. */
export type Identity = z.output<typeof identitySchema>;
