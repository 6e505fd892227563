"""A managed service provider's program in Python: the same HVA rules for each client team, one
explicit provider per team (its own API key), a directory user's chat-operations flags, and the
three data sources.

    pulumi config set baseUrl https://secops.example.com
    pulumi config set --secret client1ApiKey <team-client-1 key>
    pulumi config set --secret client2ApiKey <team-client-2 key>
    pulumi config set legacyRuleId <id of an existing client-2 rule>   # optional: adopt it
    pulumi config set caseId <case id>                                  # optional: its indicators
    pulumi config set secops:baseUrl https://secops.example.com         # with caseId: the default
    pulumi config set --secret secops:apiKey <the case's team key>      # provider reads the case
"""

import pulumi
import pulumi_secops as secops

config = pulumi.Config()
base_url = config.require("baseUrl")

providers = {}
identities = {}
rule_ids = {}
unhealthy = {}

for team in ("client1", "client2"):
    provider = secops.Provider(team, api_key=config.require_secret(f"{team}ApiKey"), base_url=base_url)
    providers[team] = provider
    on_provider = pulumi.ResourceOptions(provider=provider)
    domain_controllers = secops.HvaAutomationRule(
        f"{team}-domain-controllers", field="name", search="dc-*", opts=on_provider
    )
    secops.HvaAutomationRule(
        f"{team}-jump-hosts", field="name", search="jump-*", enabled=False, opts=on_provider
    )
    # The team's first directory user joins chat-operations onboarding; destroy puts the old value back.
    secops.DirectoryUserSettings(
        f"{team}-onboarding",
        directory_user_id=f"du-team-{team.replace('client', 'client-')}-001",
        chat_ops_onboarding_user=True,
        restore_on_delete=True,
        opts=on_provider,
    )
    rule_ids[team] = domain_controllers.id
    invoke = pulumi.InvokeOutputOptions(provider=provider)
    identities[team] = secops.get_identity_output(opts=invoke).apply(
        lambda me: f"{me.team_id} ({me.role})"
    )
    unhealthy[team] = secops.get_integration_count_output(
        health_status=["unhealthy", "unstable"], opts=invoke
    ).total_count

# Adopt a rule that was made by hand: the program's inputs must match it, or the import fails.
legacy_rule_id = config.get("legacyRuleId")
if legacy_rule_id:
    secops.HvaAutomationRule(
        "client2-legacy",
        field="name",
        search="legacy-*",
        opts=pulumi.ResourceOptions(provider=providers["client2"], import_=legacy_rule_id),
    )

# A case's threat indicators, read by the default provider (the stack's `secops:apiKey` and
# `secops:baseUrl`: the team that works the case), when a case is named.
case_id = config.get("caseId")
if case_id:
    indicators = secops.get_case_threat_indicators_output(case_id=case_id, sort_direction="desc")
    pulumi.export("indicatorCount", indicators.total_count)
    pulumi.export("latestIndicator", indicators.indicators.apply(lambda found: found[0]["title"] if found else None))

pulumi.export("teamsManaged", identities)
pulumi.export("domainControllerRules", rule_ids)
pulumi.export("unhealthyIntegrations", unhealthy)
