/** The authenticated identity (spec: PublicAuthMeResponse, GET /v1/auth/me). */
import { z } from "zod";
import { openEnum, optBool } from "./common";
import { ROLES } from "../types";

/** Every field the spec marks required is required here. */
export const identitySchema = z
  .looseObject({
    email: z.string().describe("User email address."),
    displayName: z.string().describe("First name plus optional last name if set, otherwise the email."),
    id: z.string().describe("User id."),
    role: openEnum(ROLES).describe("Role for the current team."),
    teamId: z.string().describe("Currently active team id."),
    parentTeamId: z.string().describe("Parent team id."),
    serviceProvider: optBool.describe("Service provider flag."),
    completedOnboarding: optBool.describe("Onboarding completion status."),
    hasServiceProviderParent: optBool.describe("Whether the user belongs to a service provider parent team."),
  })
  .describe("The identity behind an API key, with its role for the current team (GET /v1/auth/me).");
