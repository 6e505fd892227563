/** The authenticated identity (spec: PublicAuthMeResponse, GET /v1/auth/me). */
import { z } from "zod";
import { openEnum, optBool } from "./common";
import { ROLES } from "../types";

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
