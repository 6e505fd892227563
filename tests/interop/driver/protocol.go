package main

// The engine's newer protocol (issue 34): Handshake as the engine's first call and what follows it, and
// `List` (server streaming) as `pulumi do <token> list` calls it: pages and their continuation, limit
// (the protocol's and the shrinking one), filters, a computed query, refusals, directory users. Each
// scenario makes its own rules (its own search prefix) and deletes them after.

import (
	"context"
	"fmt"
	"io"
	"sort"
	"strings"

	pulumirpc "github.com/pulumi/pulumi/sdk/v3/proto/go"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
)

func protocolScenarios() []scenario {
	return []scenario{
		{"handshake", "Handshake as the engine sends it (its address, configure_with_urn, invoke_with_preview) answers the flags Configure answers; then Create(preview) writes nothing, Create, Update(preview) changes nothing, Delete", handshakeScenario},
		{"list-pages", "List of 5 rules with page_size 2: three calls following the continuation, each id once in id order, no continuation on the last page", listPages},
		{"list-limit", "limit 3 (page_size 2) gives 3 results whether every page sends 3 (the protocol) or what is left (pulumi do ... list --count 3); limit -1 is INVALID_ARGUMENT", listLimit},
		{"list-filters", "the query filters on enabled, field and search (a glob with * and ?)", listFilters},
		{"list-computed", "a query holding the engine's unknown value answers a single Computed and asks the API nothing", listComputed},
		{"list-refusals", "an unknown query key is INVALID_ARGUMENT naming it (nothing sent); a key no team has (401) and a role without access (403) fail the List, never an empty stream", listRefusals},
		{"list-users", "List of DirectoryUserSettings pages through the team's directory users: ids the API reads, names unique", listUsers},
	}
}

// ---------------------------------------------------------------------------------------------------
// Handshake.

func handshakeScenario(ctx context.Context, h *harness) error {
	p, err := h.startPlugin(ctx)
	if err != nil {
		return err
	}
	defer p.close()
	// The engine's first call, made when it dialled the plugin (see dial).
	if p.handshakeErr != nil {
		return failf("Handshake %+v answered %v", p.hello, p.handshakeErr)
	}
	hs := p.handshake
	if err := firstErr(same("Handshake's engine_address is the engine's Log server", p.hello.GetEngineAddress(), h.engine.addr),
		same("Handshake accept_secrets", hs.GetAcceptSecrets(), true),
		same("Handshake accept_resources", hs.GetAcceptResources(), true),
		same("Handshake accept_outputs", hs.GetAcceptOutputs(), false),
		same("Handshake supports_autonaming_configuration", hs.GetSupportsAutonamingConfiguration(), false),
		same("Handshake accepts_byte_string", hs.GetAcceptsByteString(), false)); err != nil {
		return err
	}
	// Then the provider sequence; an engine that handshook sends acceptSecrets, acceptResources and
	// sendsOldInputs true, and the answer must agree with the Handshake's.
	conf, err := h.configure(ctx, p, h.key, false)
	if err != nil {
		return err
	}
	if err := firstErr(same("Configure acceptSecrets (as Handshake)", conf.GetAcceptSecrets(), hs.GetAcceptSecrets()),
		same("Configure acceptResources (as Handshake)", conf.GetAcceptResources(), hs.GetAcceptResources()),
		same("Configure acceptOutputs (as Handshake)", conf.GetAcceptOutputs(), hs.GetAcceptOutputs()),
		same("Configure supports_autonaming_configuration (as Handshake)", conf.GetSupportsAutonamingConfiguration(), hs.GetSupportsAutonamingConfiguration()),
		same("Configure supportsPreview (the engine assumes it after a Handshake)", conf.GetSupportsPreview(), true)); err != nil {
		return err
	}

	// After a Handshake the engine sends preview=true to Create and Update: nothing may be written.
	const urn = "urn:pulumi:dev::interop::secops:index:HvaAutomationRule::handshake"
	const search = "hs-handshake-*"
	before, err := h.apiState("")
	if err != nil {
		return err
	}
	inputs, err := check(ctx, p, urn, ruleType, bag{}, bag{"field": "name", "search": search})
	if err != nil {
		return err
	}
	if _, err := p.rp.Create(ctx, &pulumirpc.CreateRequest{Urn: urn, Type: ruleType, Name: "handshake", Properties: toStruct(inputs), Preview: true}); err != nil {
		return failf("Create(preview=true) after Handshake: %v", err)
	}
	mid, err := h.apiState("")
	if err != nil {
		return err
	}
	if err := firstErr(same("writes during Create(preview=true)", mid.writes-before.writes, 0),
		same("the team's rules after Create(preview=true)", mid.rules, before.rules)); err != nil {
		return err
	}
	made, err := p.rp.Create(ctx, &pulumirpc.CreateRequest{Urn: urn, Type: ruleType, Name: "handshake", Properties: toStruct(inputs), Timeout: 60})
	if err != nil {
		return failf("Create after Handshake: %v", err)
	}
	id, props := made.GetId(), fromStruct(made.GetProperties())
	if id == "" {
		return failf("Create after Handshake answered no id")
	}
	deleted := false
	defer func() {
		if !deleted {
			_ = h.sim.deleteRule(h.key, id)
		}
	}()
	created, err := h.apiState(id)
	if err != nil {
		return err
	}
	if created.rule == nil {
		return failf("the API does not know rule %s after its Create", id)
	}
	if err := firstErr(same("the team's rules after Create", created.rules, before.rules+1),
		same("the created rule in the API", *created.rule, hvaRule{ID: id, TeamID: "team-acme", Enabled: true, SearchField: "name", Search: search})); err != nil {
		return err
	}
	news, err := check(ctx, p, urn, ruleType, inputs, bag{"field": "name", "search": search, "enabled": false})
	if err != nil {
		return err
	}
	if _, err := p.rp.Update(ctx, &pulumirpc.UpdateRequest{Id: id, Urn: urn, Type: ruleType, Name: "handshake", Olds: toStruct(props), News: toStruct(news), OldInputs: toStruct(inputs), Preview: true}); err != nil {
		return failf("Update(preview=true) after Handshake: %v", err)
	}
	updated, err := h.apiState(id)
	if err != nil {
		return err
	}
	if updated.rule == nil {
		return failf("rule %s is gone from the API after Update(preview=true)", id)
	}
	if err := firstErr(same("writes during Update(preview=true)", updated.writes-created.writes, 0),
		same("the rule's enabled in the API after Update(preview=true)", updated.rule.Enabled, true)); err != nil {
		return err
	}
	if _, err := p.rp.Delete(ctx, &pulumirpc.DeleteRequest{Id: id, Urn: urn, Type: ruleType, Name: "handshake", Properties: toStruct(props), OldInputs: toStruct(inputs), Timeout: 60}); err != nil {
		return failf("Delete after Handshake: %v", err)
	}
	deleted = true
	after, err := h.apiState(id)
	if err != nil {
		return err
	}
	if after.rule != nil {
		return failf("rule %s is still in the API after its Delete: %+v", id, *after.rule)
	}
	return same("the team's rules after Delete", after.rules, before.rules)
}

// ---------------------------------------------------------------------------------------------------
// List.

// listAnswer is what one List call streamed.
type listAnswer struct {
	results      []*pulumirpc.ListResponse_Result
	continuation *pulumirpc.ListResponse_Continuation // nil when none was sent
	computed     bool
	messages     int
	// shape is how the answers broke the protocol's order (results, then at most one continuation,
	// last; or a single computed), empty when they kept it.
	shape string
}

// ids of the results, in the order streamed.
func (a listAnswer) ids() []string {
	out := make([]string, len(a.results))
	for i, r := range a.results {
		out[i] = r.GetId()
	}
	return out
}

// next is the continuation token ("" when none).
func (a listAnswer) next() string { return a.continuation.GetContinuationToken() }

// listCall makes one List call and reads its stream to the end; the error is the call's status.
func listCall(ctx context.Context, p *plugin, req *pulumirpc.ListRequest) (listAnswer, error) {
	var a listAnswer
	stream, err := p.rp.List(ctx, req)
	if err != nil {
		return a, err
	}
	for {
		res, err := stream.Recv()
		if err == io.EOF {
			return a, nil
		}
		if err != nil {
			return a, err
		}
		a.messages++
		if a.shape == "" && (a.computed || a.continuation != nil) {
			a.shape = fmt.Sprintf("answer %d came after a Computed or a Continuation: %v", a.messages, res)
		}
		switch {
		case res.GetComputed() != nil:
			a.computed = true
			if a.messages > 1 && a.shape == "" {
				a.shape = "a Computed after other answers"
			}
		case res.GetResult() != nil:
			a.results = append(a.results, res.GetResult())
		case res.GetContinuation() != nil:
			a.continuation = res.GetContinuation()
		default:
			if a.shape == "" {
				a.shape = fmt.Sprintf("answer %d is empty", a.messages)
			}
		}
	}
}

// page is one call that must succeed and keep the protocol's order.
func page(ctx context.Context, p *plugin, req *pulumirpc.ListRequest, what string) (listAnswer, error) {
	a, err := listCall(ctx, p, req)
	if err != nil {
		return a, failf("List %s: %v", what, err)
	}
	if a.shape != "" {
		return a, failf("List %s broke the protocol's order: %s", what, a.shape)
	}
	if a.computed {
		return a, failf("List %s answered Computed", what)
	}
	return a, nil
}

// makeRules makes n rules `<prefix>-1`...`<prefix>-n` in the team through the API; their ids in id
// order, and a cleanup that deletes them.
func (h *harness) makeRules(prefix string, n int) ([]string, func(), error) {
	var ids []string
	cleanup := func() {
		for _, id := range ids {
			_ = h.sim.deleteRule(h.key, id)
		}
	}
	for i := 1; i <= n; i++ {
		r, err := h.sim.createRule(h.key, "name", fmt.Sprintf("%s-%d", prefix, i))
		if err != nil {
			cleanup()
			return nil, nil, err
		}
		ids = append(ids, r.ID)
	}
	sort.Strings(ids)
	return ids, cleanup, nil
}

func listPages(ctx context.Context, h *harness) error {
	ids, cleanup, err := h.makeRules("lp", 5)
	if err != nil {
		return err
	}
	defer cleanup()
	p, err := h.configured(ctx, h.key, false)
	if err != nil {
		return err
	}
	defer p.close()
	req := &pulumirpc.ListRequest{Token: ruleType, Query: toStruct(bag{"search": "lp-*"}), PageSize: 2}
	var got []string
	names := map[string]string{}
	for call, want := range []int{2, 2, 1} {
		a, err := page(ctx, p, req, fmt.Sprintf("page %d", call+1))
		if err != nil {
			return err
		}
		if len(a.results) != want {
			return failf("List page %d (page_size 2) answered %d results %v, want %d", call+1, len(a.results), a.ids(), want)
		}
		for _, r := range a.results {
			if r.GetName() == "" {
				return failf("List page %d: %s has no name", call+1, r.GetId())
			}
			if other, dup := names[r.GetName()]; dup {
				return failf("List gave the name %q to %s and %s", r.GetName(), other, r.GetId())
			}
			names[r.GetName()] = r.GetId()
		}
		got = append(got, a.ids()...)
		last := call == 2
		if last && a.continuation != nil {
			return failf("the last page (page 3) has a continuation %q", a.next())
		}
		if !last && a.next() == "" {
			return failf("page %d of 3 has no continuation token (continuation %v)", call+1, a.continuation)
		}
		req = &pulumirpc.ListRequest{Token: ruleType, Query: toStruct(bag{"search": "lp-*"}), PageSize: 2, ContinuationToken: a.next()}
	}
	return same("the ids of the three pages, in order", got, ids)
}

func listLimit(ctx context.Context, h *harness) error {
	ids, cleanup, err := h.makeRules("ll", 5)
	if err != nil {
		return err
	}
	defer cleanup()
	p, err := h.configured(ctx, h.key, false)
	if err != nil {
		return err
	}
	defer p.close()
	query := toStruct(bag{"search": "ll-*"})
	// limits is the limit each page sends; the listing must end with exactly 3 results.
	for _, limits := range [][]int64{{3, 3}, {3, 1}} {
		what := fmt.Sprintf("with limits %v (page_size 2)", limits)
		var got []string
		next := ""
		for i, limit := range limits {
			a, err := page(ctx, p, &pulumirpc.ListRequest{Token: ruleType, Query: query, Limit: limit, PageSize: 2, ContinuationToken: next}, fmt.Sprintf("page %d %s", i+1, what))
			if err != nil {
				return err
			}
			got = append(got, a.ids()...)
			next = a.next()
			last := i == len(limits)-1
			if last && a.continuation != nil {
				return failf("List %s: the page that reaches the limit has a continuation %q", what, next)
			}
			if !last && next == "" {
				return failf("List %s: page %d (%d results) has no continuation", what, i+1, len(a.results))
			}
		}
		if err := same("the ids listed "+what, got, ids[:3]); err != nil {
			return err
		}
	}
	_, err = listCall(ctx, p, &pulumirpc.ListRequest{Token: ruleType, Query: query, Limit: -1, PageSize: 2})
	s := status.Convert(err)
	if err == nil || s.Code() != codes.InvalidArgument || s.Message() != "limit: must not be negative" {
		return failf("List with limit -1 answered %v, want INVALID_ARGUMENT \"limit: must not be negative\"", err)
	}
	return nil
}

// listIDs pages through a whole listing (page_size 2) and returns its ids, each checked to come once.
func listIDs(ctx context.Context, p *plugin, token string, query bag, pageSize int64) ([]string, []string, error) {
	var ids, names []string
	seen := map[string]bool{}
	next := ""
	for pages := 1; ; pages++ {
		if pages > 200 {
			return nil, nil, failf("List of %s %v did not end in 200 pages", token, query)
		}
		a, err := page(ctx, p, &pulumirpc.ListRequest{Token: token, Query: toStruct(query), PageSize: pageSize, ContinuationToken: next}, fmt.Sprintf("of %s %v, page %d", token, query, pages))
		if err != nil {
			return nil, nil, err
		}
		for _, r := range a.results {
			if seen[r.GetId()] {
				return nil, nil, failf("List of %s %v returned %s twice", token, query, r.GetId())
			}
			seen[r.GetId()] = true
			ids = append(ids, r.GetId())
			names = append(names, r.GetName())
		}
		if next = a.next(); next == "" {
			return ids, names, nil
		}
	}
}

func listFilters(ctx context.Context, h *harness) error {
	// lf-1..lf-5 on the name field, lf-12 (the glob's ? matches one character: not it) and lf-6 on
	// another field (the API takes any field; the spec lists only name).
	ids, cleanup, err := h.makeRules("lf", 5)
	if err != nil {
		return err
	}
	defer cleanup()
	long, err := h.sim.createRule(h.key, "name", "lf-12")
	if err != nil {
		return err
	}
	defer func() { _ = h.sim.deleteRule(h.key, long.ID) }()
	other, err := h.sim.createRule(h.key, "hostname", "lf-6")
	if err != nil {
		return err
	}
	defer func() { _ = h.sim.deleteRule(h.key, other.ID) }()
	disabled := []string{ids[1], ids[3]}
	for _, id := range disabled {
		if err := h.sim.enableRule(h.key, id, false); err != nil {
			return err
		}
	}
	// What the API holds, to compute what each filter over the whole team must give.
	rules, err := h.sim.rules(h.key)
	if err != nil {
		return err
	}
	expect := func(keep func(r hvaRule) bool) []string {
		out := []string{}
		for _, r := range rules {
			if keep(r) {
				out = append(out, r.ID)
			}
		}
		sort.Strings(out)
		return out
	}
	sorted := func(xs ...string) []string {
		out := append([]string{}, xs...)
		sort.Strings(out)
		return out
	}
	p, err := h.configured(ctx, h.key, false)
	if err != nil {
		return err
	}
	defer p.close()
	for _, c := range []struct {
		query bag
		want  []string
	}{
		{bag{"enabled": false}, expect(func(r hvaRule) bool { return !r.Enabled })},
		{bag{"enabled": true}, expect(func(r hvaRule) bool { return r.Enabled })},
		{bag{"field": "name"}, expect(func(r hvaRule) bool { return r.SearchField == "name" })},
		{bag{"field": "hostname"}, []string{other.ID}},
		{bag{"search": "lf-?"}, sorted(append(append([]string{}, ids...), other.ID)...)},
		{bag{"search": "lf-*"}, sorted(append(append([]string{}, ids...), other.ID, long.ID)...)},
		{bag{"search": "lf-?", "field": "name"}, ids},
		{bag{"search": "lf-?", "enabled": false}, disabled},
		{bag{"search": "lf-*", "field": "name", "enabled": true}, sorted(ids[0], ids[2], ids[4], long.ID)},
		{bag{"search": "no-rule-matches-*"}, []string{}},
	} {
		got, _, err := listIDs(ctx, p, ruleType, c.query, 2)
		if err != nil {
			return err
		}
		if got == nil {
			got = []string{}
		}
		if err := same(fmt.Sprintf("the ids listed for %v", c.query), got, c.want); err != nil {
			return err
		}
	}
	if len(expect(func(r hvaRule) bool { return !r.Enabled })) < 2 {
		return failf("the team has fewer than 2 disabled rules after disabling 2")
	}
	return nil
}

func listComputed(ctx context.Context, h *harness) error {
	p, err := h.configured(ctx, h.key, false)
	if err != nil {
		return err
	}
	defer p.close()
	for _, query := range []bag{{"search": unknown}, {"field": "name", "enabled": unknown}} {
		before, err := h.sim.allRequests()
		if err != nil {
			return err
		}
		a, err := listCall(ctx, p, &pulumirpc.ListRequest{Token: ruleType, Query: toStruct(query), PageSize: 2})
		if err != nil {
			return failf("List with the query %v: %v", query, err)
		}
		if !a.computed || a.messages != 1 {
			return failf("List with the query %v answered %d messages (computed %v, %d results, continuation %v), want exactly one Computed",
				query, a.messages, a.computed, len(a.results), a.continuation)
		}
		after, err := h.sim.allRequests()
		if err != nil {
			return err
		}
		if err := same(fmt.Sprintf("API requests for a List with the query %v", query), after-before, 0); err != nil {
			return err
		}
	}
	return nil
}

func listRefusals(ctx context.Context, h *harness) error {
	p, err := h.configured(ctx, h.key, false)
	if err != nil {
		return err
	}
	defer p.close()
	// An unknown query key: refused by name before anything is sent.
	before, err := h.sim.allRequests()
	if err != nil {
		return err
	}
	a, err := listCall(ctx, p, &pulumirpc.ListRequest{Token: ruleType, Query: toStruct(bag{"serch": "lr-*"}), PageSize: 2})
	const want = "serch: is not a query key of secops:index:HvaAutomationRule; did you mean search?"
	if s := status.Convert(err); err == nil || s.Code() != codes.InvalidArgument || s.Message() != want {
		return failf("List with the query key serch answered %v (%d messages), want INVALID_ARGUMENT %q", err, a.messages, want)
	}
	after, err := h.sim.allRequests()
	if err != nil {
		return err
	}
	if err := same("API requests for a List with an unknown query key", after-before, 0); err != nil {
		return err
	}

	// A role without access: the API answers 403 on the list route.
	if err := h.sim.faults([]bag{{"kind": "403", "method": "GET", "path": "/endpoint/hva/automation"}}); err != nil {
		return err
	}
	a, err = listCall(ctx, p, &pulumirpc.ListRequest{Token: ruleType, Query: toStruct(bag{}), PageSize: 2})
	if err := h.sim.faults(nil); err != nil {
		return err
	}
	if err == nil {
		return failf("List answered by a 403 ended OK with %d results (an empty list for a role without access)", len(a.results))
	}
	if s := status.Convert(err); !strings.Contains(s.Message(), "failed (403)") || s.Code() == codes.OK {
		return failf("List answered by a 403 failed with %v, want details containing \"failed (403)\"", err)
	}
	// The plugin still lists once the API answers again.
	if _, err := page(ctx, p, &pulumirpc.ListRequest{Token: ruleType, Query: toStruct(bag{}), PageSize: 2}, "after the 403"); err != nil {
		return err
	}

	// A key no team has: the API answers 401 to the lookup Configure makes, so Configure fails (as
	// `pulumi do` configures before it lists): never an empty stream.
	q, err := h.configured(ctx, "sk_not_a_key_of_any_team", false)
	if err == nil {
		q.close()
		return failf("Configure with a key no team has succeeded")
	}
	if m := err.Error(); !strings.Contains(m, "InvalidArgument") || !strings.Contains(m, "its apiKey is not a valid key") || !strings.Contains(m, "answered 401") {
		return failf("Configure with a key no team has failed with %v, want INVALID_ARGUMENT naming the refused apiKey (401)", err)
	}
	for _, l := range h.engine.logged() {
		if strings.Contains(l.Message, "sk_not_a_key_of_any_team") {
			return failf("the rejected key appears in an engine log: %q", l.Message)
		}
	}
	if strings.Contains(err.Error(), "sk_not_a_key_of_any_team") {
		return failf("the rejected key appears in Configure's error: %v", err)
	}
	return nil
}

func listUsers(ctx context.Context, h *harness) error {
	users, err := h.sim.users(h.key)
	if err != nil {
		return err
	}
	want := []string{}
	for _, u := range users {
		id, _ := u["id"].(string)
		want = append(want, id)
	}
	sort.Strings(want)
	if len(want) < 3 {
		return failf("the team has %d directory users; the listing needs more than a page", len(want))
	}
	p, err := h.configured(ctx, h.key, false)
	if err != nil {
		return err
	}
	defer p.close()
	ids, names, err := listIDs(ctx, p, userType, bag{}, 25)
	if err != nil {
		return err
	}
	if err := same("the directory users List streamed (in id order)", ids, want); err != nil {
		return err
	}
	seen := map[string]string{}
	for i, name := range names {
		if name == "" {
			return failf("List gave %s no name", ids[i])
		}
		if other, dup := seen[name]; dup {
			return failf("List gave the name %q to %s and %s", name, other, ids[i])
		}
		seen[name] = ids[i]
	}
	// Each id is one the API reads with the team's key (importable as is).
	for _, id := range ids {
		u, err := h.sim.user(h.key, id)
		if err != nil {
			return err
		}
		if err := same("GET /v1/directory/"+id+" id", u["id"], id); err != nil {
			return err
		}
	}
	return nil
}
