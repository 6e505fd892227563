package main

// The engine's sequences for a deployment, each in its own plugin process as each `pulumi` command
// starts its own: preview, up, refresh, import, update (with its preview) and destroy, for both
// resources, with the API's state asserted after each step through the API itself (team key) and the
// simulator's write counter.

import (
	"context"
	"reflect"
	"strings"
	"time"

	pulumirpc "github.com/pulumi/pulumi/sdk/v3/proto/go"
	"google.golang.org/protobuf/types/known/emptypb"
)

const (
	providerURN = "urn:pulumi:dev::interop::pulumi:providers:secops::default_0_1_0"
	ruleURN     = "urn:pulumi:dev::interop::secops:index:HvaAutomationRule::grpc-go"
	userURN     = "urn:pulumi:dev::interop::secops:index:DirectoryUserSettings::grpc-go"
	ruleType    = "secops:index:HvaAutomationRule"
	userType    = "secops:index:DirectoryUserSettings"
	// userID is the directory user the deployment changes; importedUserID one it only imports.
	userID         = "du-team-acme-005"
	importedUserID = "du-team-acme-010"
	ruleSearch     = "grpc-go-*"
)

// deployment is the state the engine keeps between commands.
type deployment struct {
	baseRules                  int // the team's rules before the deployment
	userBefore                 bag // the user before the deployment
	ruleID                     string
	ruleInputs, ruleProps      bag
	userInputs, userProps      bag
	exposedBefore, onboardedBy bool
}

// configured starts a plugin and takes it through the engine's provider sequence: GetPluginInfo,
// CheckConfig, DiffConfig, Configure (a default provider: stack config in `variables`, secrets
// unwrapped, and in `args`, the key as a secret). In a preview the provider's id is unknown.
func (h *harness) configured(ctx context.Context, key string, preview bool, flags ...string) (*plugin, error) {
	p, err := h.startPlugin(ctx, flags...)
	if err != nil {
		return nil, err
	}
	res, err := h.configure(ctx, p, key, preview)
	if err != nil {
		return nil, err
	}
	if !res.GetAcceptSecrets() || !res.GetSupportsPreview() {
		return nil, failf("Configure answered acceptSecrets=%v supportsPreview=%v", res.GetAcceptSecrets(), res.GetSupportsPreview())
	}
	return p, nil
}

// configure is the provider sequence of `configured` on a started plugin; it returns Configure's answer.
func (h *harness) configure(ctx context.Context, p *plugin, key string, preview bool) (*pulumirpc.ConfigureResponse, error) {
	info, err := p.rp.GetPluginInfo(ctx, &emptypb.Empty{})
	if err != nil {
		return nil, failf("GetPluginInfo: %v", err)
	}
	if info.GetVersion() != h.version {
		return nil, failf("GetPluginInfo answered version %q, package.json says %q", info.GetVersion(), h.version)
	}
	news := bag{"apiKey": secret(key), "baseUrl": h.sim.URL, "version": h.version}
	if key == "" {
		news = bag{"version": h.version}
	}
	checked, err := p.rp.CheckConfig(ctx, &pulumirpc.CheckRequest{
		Urn: providerURN, Name: "default_0_1_0", Type: "pulumi:providers:secops",
		Olds: toStruct(bag{}), News: toStruct(news),
	})
	if err != nil {
		return nil, failf("CheckConfig: %v", err)
	}
	if len(checked.GetFailures()) > 0 {
		return nil, failf("CheckConfig failures: %v", checked.GetFailures())
	}
	inputs := checked.GetInputs()
	diff, err := p.rp.DiffConfig(ctx, &pulumirpc.DiffRequest{
		Urn: providerURN, Name: "default_0_1_0", Type: "pulumi:providers:secops",
		Olds: inputs, News: inputs, OldInputs: inputs,
	})
	if err != nil {
		return nil, failf("DiffConfig: %v", err)
	}
	if diff.GetChanges() == pulumirpc.DiffResponse_DIFF_SOME {
		return nil, failf("DiffConfig of the same inputs reports changes: %v", diff)
	}
	id := "b7a5b6a6-0d2e-4f61-9a55-4d1bd1a3c0de"
	if preview {
		id = unknown
	}
	urn, name, typ := providerURN, "default_0_1_0", "pulumi:providers:secops"
	variables := map[string]string{}
	if key != "" {
		variables = map[string]string{"secops:config:apiKey": key, "secops:config:baseUrl": h.sim.URL}
	}
	res, err := p.rp.Configure(ctx, &pulumirpc.ConfigureRequest{
		Variables: variables, Args: inputs,
		AcceptSecrets: true, AcceptResources: true, SendsOldInputs: true, SendsOldInputsToDelete: true,
		Id: &id, Urn: &urn, Name: &name, Type: &typ,
	})
	if err != nil {
		return nil, failf("Configure: %v", err)
	}
	return res, nil
}

func check(ctx context.Context, p *plugin, urn, typ string, olds, news bag) (bag, error) {
	res, err := p.rp.Check(ctx, &pulumirpc.CheckRequest{
		Urn: urn, Type: typ, Name: "grpc-go", Olds: toStruct(olds), News: toStruct(news),
		RandomSeed: []byte("0123456789abcdef0123456789abcdef"),
	})
	if err != nil {
		return nil, failf("Check %s: %v", typ, err)
	}
	if len(res.GetFailures()) > 0 {
		return nil, failf("Check %s failures: %v", typ, res.GetFailures())
	}
	return fromStruct(res.GetInputs()), nil
}

func kinds(d *pulumirpc.DiffResponse) map[string]string {
	out := map[string]string{}
	for k, v := range d.GetDetailedDiff() {
		out[k] = v.GetKind().String()
	}
	return out
}

// same fails unless got equals want (JSON-like values).
func same(what string, got, want interface{}) error {
	if !reflect.DeepEqual(got, want) {
		return failf("%s: got %#v, want %#v", what, got, want)
	}
	return nil
}

func firstErr(errs ...error) error {
	for _, e := range errs {
		if e != nil {
			return e
		}
	}
	return nil
}

// apiState is what the API holds of the deployment's objects.
type apiState struct {
	rules  int
	rule   *hvaRule // the deployment's rule, nil when absent
	user   bag
	writes int
}

func (h *harness) apiState(ruleID string) (apiState, error) {
	var s apiState
	rules, err := h.sim.rules(h.key)
	if err != nil {
		return s, err
	}
	s.rules = len(rules)
	if ruleID != "" {
		if s.rule, err = h.sim.rule(h.key, ruleID); err != nil {
			return s, err
		}
	}
	if s.user, err = h.sim.user(h.key, userID); err != nil {
		return s, err
	}
	s.writes, err = h.sim.writes()
	return s, err
}

func deploymentScenarios() []scenario {
	return []scenario{
		{"preview", "CheckConfig, DiffConfig, Configure (preview), Check, Create(preview=true) of both resources write nothing", preview},
		{"up", "Create of both resources writes the rule (one more in the team's list) and the user's flag", up},
		{"refresh", "Read with id and props returns the API's state, drift made out of band included", refresh},
		{"import", "Read with only an id returns inputs and properties; Check and Diff of them show no change", importStep},
		{"update", "Check, Diff (detailed), Update(preview=true) writes nothing, Update changes the API", update},
		{"destroy", "Delete removes the rule (team's list back to its size) and restores the user", destroy},
	}
}

func preview(ctx context.Context, h *harness) error {
	before, err := h.apiState("")
	if err != nil {
		return err
	}
	p, err := h.configured(ctx, h.key, true)
	if err != nil {
		return err
	}
	defer p.close()
	inputs, err := check(ctx, p, ruleURN, ruleType, bag{}, bag{"field": "name", "search": ruleSearch})
	if err != nil {
		return err
	}
	if err := same("checked rule inputs", inputs, bag{"field": "name", "search": ruleSearch, "enabled": true, "adoptExisting": false}); err != nil {
		return err
	}
	made, err := p.rp.Create(ctx, &pulumirpc.CreateRequest{Urn: ruleURN, Type: ruleType, Name: "grpc-go", Properties: toStruct(inputs), Preview: true})
	if err != nil {
		return failf("Create(preview) of the rule: %v", err)
	}
	if err := firstErr(same("previewed rule id", made.GetId(), ""),
		same("previewed rule properties", fromStruct(made.GetProperties()),
			bag{"field": "name", "search": ruleSearch, "enabled": true, "teamId": unknown, "disabledAt": unknown})); err != nil {
		return err
	}
	// An input computed from another resource is unknown in a preview.
	pending, err := check(ctx, p, ruleURN+"-pending", ruleType, bag{}, bag{"field": "name", "search": unknown})
	if err != nil {
		return err
	}
	if _, err := p.rp.Create(ctx, &pulumirpc.CreateRequest{Urn: ruleURN + "-pending", Type: ruleType, Properties: toStruct(pending), Preview: true}); err != nil {
		return failf("Create(preview) of a rule with an unknown search: %v", err)
	}
	exposed, _ := before.user["credentialsExposed"].(bool)
	uin, err := check(ctx, p, userURN, userType, bag{}, bag{"directoryUserId": userID, "credentialsExposed": !exposed, "restoreOnDelete": true})
	if err != nil {
		return err
	}
	if _, err := p.rp.Create(ctx, &pulumirpc.CreateRequest{Urn: userURN, Type: userType, Name: "grpc-go", Properties: toStruct(uin), Preview: true}); err != nil {
		return failf("Create(preview) of the user settings: %v", err)
	}
	after, err := h.apiState("")
	if err != nil {
		return err
	}
	return firstErr(
		same("writes during the preview", after.writes-before.writes, 0),
		same("the team's rules after the preview", after.rules, before.rules),
		same("the user after the preview", after.user, before.user))
}

func up(ctx context.Context, h *harness) error {
	before, err := h.apiState("")
	if err != nil {
		return err
	}
	p, err := h.configured(ctx, h.key, false)
	if err != nil {
		return err
	}
	defer p.close()
	d := &deployment{baseRules: before.rules, userBefore: before.user}
	d.exposedBefore, _ = before.user["credentialsExposed"].(bool)
	d.onboardedBy, _ = before.user["chatOpsOnboardingUser"].(bool)
	if d.ruleInputs, err = check(ctx, p, ruleURN, ruleType, bag{}, bag{"field": "name", "search": ruleSearch}); err != nil {
		return err
	}
	made, err := p.rp.Create(ctx, &pulumirpc.CreateRequest{Urn: ruleURN, Type: ruleType, Name: "grpc-go", Properties: toStruct(d.ruleInputs), Timeout: 60})
	if err != nil {
		return failf("Create of the rule: %v", err)
	}
	d.ruleID, d.ruleProps = made.GetId(), fromStruct(made.GetProperties())
	if d.ruleID == "" {
		return failf("Create of the rule answered no id")
	}
	if err := same("created rule properties", d.ruleProps, bag{"field": "name", "search": ruleSearch, "enabled": true, "teamId": "team-acme"}); err != nil {
		return err
	}
	if d.userInputs, err = check(ctx, p, userURN, userType, bag{}, bag{"directoryUserId": userID, "credentialsExposed": !d.exposedBefore, "restoreOnDelete": true}); err != nil {
		return err
	}
	umade, err := p.rp.Create(ctx, &pulumirpc.CreateRequest{Urn: userURN, Type: userType, Name: "grpc-go", Properties: toStruct(d.userInputs), Timeout: 60})
	if err != nil {
		return failf("Create of the user settings: %v", err)
	}
	d.userProps = fromStruct(umade.GetProperties())
	if err := firstErr(same("created user id", umade.GetId(), userID),
		same("created user credentialsExposed", d.userProps["credentialsExposed"], !d.exposedBefore),
		same("created user previousValues.credentialsExposed",
			asBag(d.userProps["previousValues"])["credentialsExposed"], d.exposedBefore)); err != nil {
		return err
	}
	h.deployed = d
	after, err := h.apiState(d.ruleID)
	if err != nil {
		return err
	}
	if after.rule == nil {
		return failf("the API does not know rule %s after its create", d.ruleID)
	}
	return firstErr(
		same("the team's rules after up", after.rules, before.rules+1),
		same("the created rule in the API", *after.rule, hvaRule{ID: d.ruleID, TeamID: "team-acme", Enabled: true, SearchField: "name", Search: ruleSearch}),
		same("the user's credentialsExposed in the API", after.user["credentialsExposed"], !d.exposedBefore))
}

func asBag(v interface{}) bag {
	b, _ := v.(bag)
	return b
}

// deployedOrSkip is the state "up" left, or why this step cannot run.
func (h *harness) deployedOrSkip() (*deployment, error) {
	if h.deployed == nil {
		return nil, failf("not run: the up step failed, so there is nothing deployed")
	}
	return h.deployed, nil
}

func refresh(ctx context.Context, h *harness) error {
	d, err := h.deployedOrSkip()
	if err != nil {
		return err
	}
	p, err := h.configured(ctx, h.key, false)
	if err != nil {
		return err
	}
	defer p.close()
	before, err := h.apiState(d.ruleID)
	if err != nil {
		return err
	}
	read := func(urn, typ, id string, props, inputs bag) (*pulumirpc.ReadResponse, error) {
		res, err := p.rp.Read(ctx, &pulumirpc.ReadRequest{Id: id, Urn: urn, Type: typ, Name: "grpc-go", Properties: toStruct(props), Inputs: toStruct(inputs)})
		if err != nil {
			return nil, failf("Read %s %s: %v", typ, id, err)
		}
		return res, nil
	}
	r, err := read(ruleURN, ruleType, d.ruleID, d.ruleProps, d.ruleInputs)
	if err != nil {
		return err
	}
	if err := firstErr(same("refreshed rule id", r.GetId(), d.ruleID),
		same("refreshed rule properties", fromStruct(r.GetProperties()), d.ruleProps),
		same("refreshed rule inputs", fromStruct(r.GetInputs()), d.ruleInputs)); err != nil {
		return err
	}
	u, err := read(userURN, userType, userID, d.userProps, d.userInputs)
	if err != nil {
		return err
	}
	if err := firstErr(same("refreshed user id", u.GetId(), userID),
		same("refreshed user properties", fromStruct(u.GetProperties()), d.userProps)); err != nil {
		return err
	}
	mid, err := h.apiState(d.ruleID)
	if err != nil {
		return err
	}
	if err := firstErr(same("writes during the refresh", mid.writes-before.writes, 0),
		same("the team's rules after the refresh", mid.rules, d.baseRules+1)); err != nil {
		return err
	}
	// Drift: the rule disabled in the product's console shows in the next `pulumi refresh` (a new
	// plugin process: within one, reads share a list of the team's rules for a few seconds).
	if err := h.sim.patchRule(d.ruleID, bag{"enabled": false}); err != nil {
		return err
	}
	defer func() { _ = h.sim.patchRule(d.ruleID, bag{"enabled": true}) }()
	p.close()
	if p, err = h.configured(ctx, h.key, false); err != nil {
		return err
	}
	defer p.close()
	drifted, err := read(ruleURN, ruleType, d.ruleID, d.ruleProps, d.ruleInputs)
	if err != nil {
		return err
	}
	return firstErr(same("refreshed rule enabled after drift", fromStruct(drifted.GetProperties())["enabled"], false),
		same("refreshed rule inputs' enabled after drift", fromStruct(drifted.GetInputs())["enabled"], false))
}

func importStep(ctx context.Context, h *harness) error {
	p, err := h.configured(ctx, h.key, false)
	if err != nil {
		return err
	}
	defer p.close()
	rules, err := h.sim.rules(h.key)
	if err != nil {
		return err
	}
	var seeded *hvaRule
	for i := range rules {
		if !strings.HasPrefix(rules[i].Search, "grpc-go") {
			seeded = &rules[i]
			break
		}
	}
	if seeded == nil {
		return failf("the simulator's team-acme has no seeded rule to import")
	}
	before, err := h.apiState("")
	if err != nil {
		return err
	}
	res, err := p.rp.Read(ctx, &pulumirpc.ReadRequest{Id: seeded.ID, Urn: ruleURN + "-imported", Type: ruleType, Name: "grpc-go-imported"})
	if err != nil {
		return failf("Read of rule %s with only its id: %v", seeded.ID, err)
	}
	props, inputs := fromStruct(res.GetProperties()), fromStruct(res.GetInputs())
	if err := firstErr(same("imported rule id", res.GetId(), seeded.ID),
		same("imported rule properties", props, bag{"field": seeded.SearchField, "search": seeded.Search, "enabled": seeded.Enabled, "teamId": "team-acme"}),
		same("imported rule inputs", inputs, bag{"field": seeded.SearchField, "search": seeded.Search, "enabled": seeded.Enabled})); err != nil {
		return err
	}
	checked, err := check(ctx, p, ruleURN+"-imported", ruleType, inputs, inputs)
	if err != nil {
		return err
	}
	diff, err := p.rp.Diff(ctx, &pulumirpc.DiffRequest{Id: seeded.ID, Urn: ruleURN + "-imported", Type: ruleType, Olds: toStruct(props), News: toStruct(checked), OldInputs: toStruct(inputs)})
	if err != nil {
		return failf("Diff of the imported rule: %v", err)
	}
	if diff.GetChanges() == pulumirpc.DiffResponse_DIFF_SOME {
		return failf("the imported rule's own inputs show changes: %v", kinds(diff))
	}
	user, err := h.sim.user(h.key, importedUserID)
	if err != nil {
		return err
	}
	ures, err := p.rp.Read(ctx, &pulumirpc.ReadRequest{Id: importedUserID, Urn: userURN + "-imported", Type: userType, Name: "grpc-go-imported"})
	if err != nil {
		return failf("Read of user %s with only its id: %v", importedUserID, err)
	}
	flags := bag{}
	for _, f := range []string{"needsChatOpsWelcome", "chatOpsOnboardingUser", "credentialsExposed"} {
		flags[f] = user[f]
	}
	wantInputs := bag{"directoryUserId": importedUserID}
	for k, v := range flags {
		wantInputs[k] = v
	}
	if err := firstErr(same("imported user id", ures.GetId(), importedUserID),
		same("imported user inputs", fromStruct(ures.GetInputs()), wantInputs),
		same("imported user previousValues", fromStruct(ures.GetProperties())["previousValues"], flags)); err != nil {
		return err
	}
	gone, err := p.rp.Read(ctx, &pulumirpc.ReadRequest{Id: "hva-does-not-exist", Urn: ruleURN + "-missing", Type: ruleType})
	if err != nil {
		return failf("Read of a missing rule with only its id: %v", err)
	}
	if gone.GetId() != "" {
		return failf("Read of a missing rule answered id %q", gone.GetId())
	}
	after, err := h.apiState("")
	if err != nil {
		return err
	}
	return firstErr(same("writes during the import", after.writes-before.writes, 0),
		same("the team's rules after the import", after.rules, before.rules))
}

func update(ctx context.Context, h *harness) error {
	d, err := h.deployedOrSkip()
	if err != nil {
		return err
	}
	p, err := h.configured(ctx, h.key, false)
	if err != nil {
		return err
	}
	defer p.close()
	before, err := h.apiState(d.ruleID)
	if err != nil {
		return err
	}
	news := bag{"field": "name", "search": ruleSearch, "enabled": false}
	checked, err := check(ctx, p, ruleURN, ruleType, d.ruleInputs, news)
	if err != nil {
		return err
	}
	diff, err := p.rp.Diff(ctx, &pulumirpc.DiffRequest{Id: d.ruleID, Urn: ruleURN, Type: ruleType, Olds: toStruct(d.ruleProps), News: toStruct(checked), OldInputs: toStruct(d.ruleInputs)})
	if err != nil {
		return failf("Diff of the rule: %v", err)
	}
	if err := firstErr(same("rule diff", diff.GetChanges(), pulumirpc.DiffResponse_DIFF_SOME),
		same("rule diff replaces", len(diff.GetReplaces()), 0),
		same("rule detailed diff", kinds(diff), map[string]string{"enabled": "UPDATE"})); err != nil {
		return err
	}
	unews := bag{}
	for k, v := range d.userInputs {
		unews[k] = v
	}
	unews["chatOpsOnboardingUser"] = !d.onboardedBy
	uchecked, err := check(ctx, p, userURN, userType, d.userInputs, unews)
	if err != nil {
		return err
	}
	udiff, err := p.rp.Diff(ctx, &pulumirpc.DiffRequest{Id: userID, Urn: userURN, Type: userType, Olds: toStruct(d.userProps), News: toStruct(uchecked), OldInputs: toStruct(d.userInputs)})
	if err != nil {
		return failf("Diff of the user settings: %v", err)
	}
	if err := firstErr(same("user diff", udiff.GetChanges(), pulumirpc.DiffResponse_DIFF_SOME),
		same("user detailed diff", kinds(udiff), map[string]string{"chatOpsOnboardingUser": "UPDATE"})); err != nil {
		return err
	}
	// The preview of the update (the engine sends it to a provider that supports preview).
	for _, u := range []*pulumirpc.UpdateRequest{
		{Id: d.ruleID, Urn: ruleURN, Type: ruleType, Olds: toStruct(d.ruleProps), News: toStruct(checked), OldInputs: toStruct(d.ruleInputs), Preview: true},
		{Id: userID, Urn: userURN, Type: userType, Olds: toStruct(d.userProps), News: toStruct(uchecked), OldInputs: toStruct(d.userInputs), Preview: true},
	} {
		if _, err := p.rp.Update(ctx, u); err != nil {
			return failf("Update(preview) of %s: %v", u.Type, err)
		}
	}
	mid, err := h.apiState(d.ruleID)
	if err != nil {
		return err
	}
	if err := firstErr(same("writes during the update's preview", mid.writes-before.writes, 0),
		same("the rule after the update's preview", mid.rule, before.rule),
		same("the user after the update's preview", mid.user, before.user)); err != nil {
		return err
	}
	res, err := p.rp.Update(ctx, &pulumirpc.UpdateRequest{Id: d.ruleID, Urn: ruleURN, Type: ruleType, Olds: toStruct(d.ruleProps), News: toStruct(checked), OldInputs: toStruct(d.ruleInputs), Timeout: 60})
	if err != nil {
		return failf("Update of the rule: %v", err)
	}
	ures, err := p.rp.Update(ctx, &pulumirpc.UpdateRequest{Id: userID, Urn: userURN, Type: userType, Olds: toStruct(d.userProps), News: toStruct(uchecked), OldInputs: toStruct(d.userInputs), Timeout: 60})
	if err != nil {
		return failf("Update of the user settings: %v", err)
	}
	d.ruleProps, d.ruleInputs = fromStruct(res.GetProperties()), checked
	d.userProps, d.userInputs = fromStruct(ures.GetProperties()), uchecked
	if err := firstErr(same("updated rule enabled", d.ruleProps["enabled"], false),
		same("updated user chatOpsOnboardingUser", d.userProps["chatOpsOnboardingUser"], !d.onboardedBy)); err != nil {
		return err
	}
	after, err := h.apiState(d.ruleID)
	if err != nil {
		return err
	}
	if after.rule == nil {
		return failf("rule %s is gone from the API after its update", d.ruleID)
	}
	return firstErr(same("the rule's enabled in the API", after.rule.Enabled, false),
		same("the team's rules after the update", after.rules, d.baseRules+1),
		same("the user's chatOpsOnboardingUser in the API", after.user["chatOpsOnboardingUser"], !d.onboardedBy),
		same("the user's credentialsExposed in the API", after.user["credentialsExposed"], !d.exposedBefore))
}

func destroy(ctx context.Context, h *harness) error {
	d, err := h.deployedOrSkip()
	if err != nil {
		return err
	}
	p, err := h.configured(ctx, h.key, false)
	if err != nil {
		return err
	}
	defer p.close()
	if _, err := p.rp.Delete(ctx, &pulumirpc.DeleteRequest{Id: userID, Urn: userURN, Type: userType, Properties: toStruct(d.userProps), OldInputs: toStruct(d.userInputs), Timeout: 60}); err != nil {
		return failf("Delete of the user settings: %v", err)
	}
	if _, err := p.rp.Delete(ctx, &pulumirpc.DeleteRequest{Id: d.ruleID, Urn: ruleURN, Type: ruleType, Properties: toStruct(d.ruleProps), OldInputs: toStruct(d.ruleInputs), Timeout: 60}); err != nil {
		return failf("Delete of the rule: %v", err)
	}
	after, err := h.apiState(d.ruleID)
	if err != nil {
		return err
	}
	if after.rule != nil {
		return failf("rule %s is still in the API after its delete: %+v", d.ruleID, *after.rule)
	}
	if err := firstErr(same("the team's rules after destroy", after.rules, d.baseRules),
		same("the user's credentialsExposed after destroy (restoreOnDelete)", after.user["credentialsExposed"], d.exposedBefore),
		same("the user's chatOpsOnboardingUser after destroy (restoreOnDelete)", after.user["chatOpsOnboardingUser"], d.onboardedBy)); err != nil {
		return err
	}
	// A refresh after the destroy finds nothing.
	gone, err := p.rp.Read(ctx, &pulumirpc.ReadRequest{Id: d.ruleID, Urn: ruleURN, Type: ruleType, Properties: toStruct(d.ruleProps), Inputs: toStruct(d.ruleInputs)})
	if err != nil {
		return failf("Read of the deleted rule: %v", err)
	}
	if gone.GetId() != "" {
		return failf("Read of the deleted rule answered id %q", gone.GetId())
	}
	return nil
}

// waitFor polls cond every 20 ms until it holds or the time is up.
func waitFor(d time.Duration, cond func() bool) bool {
	end := time.Now().Add(d)
	for time.Now().Before(end) {
		if cond() {
			return true
		}
		time.Sleep(20 * time.Millisecond)
	}
	return cond()
}
