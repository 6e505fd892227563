// Native Pulumi provider for the Security Operations Service API: high-value-asset automation rules, directory-user settings and data sources.
package secops
