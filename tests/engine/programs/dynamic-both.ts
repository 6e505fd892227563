// Both resources as dynamic resources, from the package root: the stack the migration starts from.
import { DirectoryUserSettings, HvaAutomationRule } from "pulumi-secops";

new HvaAutomationRule("dc", { field: "name", search: "dc-*" });
new DirectoryUserSettings("ada", { directoryUserId: "du-team-acme-005", credentialsExposed: false });
