/**
 * Directory-user flags. Only the flags written here are managed: the others stay as they are and
 * never show up in a diff. `restoreOnDelete` puts the previous values back on destroy.
 */
import { DirectoryUserSettings } from "pulumi-secops";

/** Onboard a new analyst to chat operations, and restore the old values when this stack goes away. */
export const onboarding = new DirectoryUserSettings("new-analyst", {
  directoryUserId: "du-team-acme-021",
  needsChatOpsWelcome: true,
  chatOpsOnboardingUser: true,
  restoreOnDelete: true,
});

/** Clear the exposed-credentials flag after a password reset (the user keeps it on destroy). */
export const resetDone = new DirectoryUserSettings("password-reset-ada", {
  directoryUserId: "du-team-acme-022",
  credentialsExposed: false,
});

export const onboardedEmail = onboarding.email;
export const previousValues = onboarding.previousValues;
