// Package hvarules is the program of examples/go-hva-rules: two HVA automation rules and the key's
// identity, through the default provider (the stack's secops:apiKey and secops:baseUrl config).
// main.go runs it with pulumi.Run; automate/ runs it through the Automation API.
package hvarules

import (
	"github.com/pulumi-secops/pulumi-secops/sdk/go/secops"
	"github.com/pulumi/pulumi/sdk/v3/go/pulumi"
)

// Program declares the rules and exports the key's role and team and the domain controllers' rule id.
func Program(ctx *pulumi.Context) error {
	domainControllers, err := secops.NewHvaAutomationRule(ctx, "domain-controllers", &secops.HvaAutomationRuleArgs{
		Field:  pulumi.String("name"),
		Search: pulumi.String("dc-*"),
	})
	if err != nil {
		return err
	}
	if _, err := secops.NewHvaAutomationRule(ctx, "build-agents", &secops.HvaAutomationRuleArgs{
		Field:   pulumi.String("name"),
		Search:  pulumi.String("build-*"),
		Enabled: pulumi.Bool(false),
	}); err != nil {
		return err
	}
	me := secops.GetIdentityOutput(ctx)
	ctx.Export("role", me.Role())
	ctx.Export("team", me.TeamId())
	ctx.Export("domainControllers", domainControllers.ID())
	return nil
}
