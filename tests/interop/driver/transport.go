package main

// What the engine's gRPC library does to a plugin besides the deployment's calls: its Log service,
// many calls at once on one connection, 24 MB messages, deadlines, cancels, a connection closed with
// calls in flight, and methods the plugin does not have.

import (
	"context"
	"fmt"
	"io"
	"strings"
	"sync"
	"time"

	pulumirpc "github.com/pulumi/pulumi/sdk/v3/proto/go"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/types/known/emptypb"
)

func transportScenarios() []scenario {
	return []scenario{
		{"engine-log", "engine flags and Log: started with --logtostderr -v=9 --tracing <endpoint> <engine>, a keyless Configure warns through the engine's Log service, no key in any log", engineLog},
		{"concurrent-200", "200 concurrent calls (Check, Invoke, Read, Diff, GetPluginInfo) on one connection each get their own answer", concurrent},
		{"list-stream", "List (server streaming) pages through the team's rules: the same ids as the API lists", listRules},
		{"messages-24mb", "a 24 MB request and a 24 MB response (Check returns its input with a failure) on the 400 MiB limits", bigMessages},
		{"deadline-mid-call", "a deadline expiring mid-call (API delayed) is DEADLINE_EXCEEDED; the plugin answers during and after", deadline},
		{"cancel-mid-flight", "calls cancelled mid-flight (context cancel) are CANCELED; the plugin answers during and after", cancelled},
		{"close-and-reconnect", "the connection closed with calls in flight, then a new connection to the same plugin works, still configured", reconnect},
		{"unimplemented", "unknown methods and services and Construct are UNIMPLEMENTED, an empty Handshake answers or is UNIMPLEMENTED; the connection stays usable", unimplemented},
	}
}

// identity invokes getIdentity (a read: GET /v1/auth/me) and returns the team it names.
func identity(ctx context.Context, p *plugin) (string, error) {
	res, err := p.rp.Invoke(ctx, &pulumirpc.InvokeRequest{Tok: "secops:index:getIdentity", Args: toStruct(bag{})})
	if err != nil {
		return "", err
	}
	if len(res.GetFailures()) > 0 {
		return "", failf("getIdentity failures: %v", res.GetFailures())
	}
	team, _ := fromStruct(res.GetReturn())["teamId"].(string)
	return team, nil
}

// answers checks that the plugin still serves: GetPluginInfo, and a call through the API.
func answers(ctx context.Context, p *plugin, when string) error {
	if !p.alive() {
		return failf("the plugin exited %s; stderr: %s", when, p.stderr.String())
	}
	c, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	if _, err := p.rp.GetPluginInfo(c, &emptypb.Empty{}); err != nil {
		return failf("GetPluginInfo %s: %v", when, err)
	}
	team, err := identity(c, p)
	if err != nil {
		return failf("getIdentity %s: %v", when, err)
	}
	return same("getIdentity's team "+when, team, "team-acme")
}

func engineLog(ctx context.Context, h *harness) error {
	p, err := h.startPlugin(ctx, "--logtostderr", "-v=9", "--tracing", "http://127.0.0.1:9/trace")
	if err != nil {
		return err
	}
	defer p.close()
	if _, err := p.rp.GetPluginInfo(ctx, &emptypb.Empty{}); err != nil {
		return failf("GetPluginInfo: %v", err)
	}
	// The default provider of a stack without secops:apiKey: Configure takes it, warns once.
	since := len(h.engine.logged())
	id, urn, name, typ := unknown, providerURN, "default_0_1_0", "pulumi:providers:secops"
	if _, err := p.rp.Configure(ctx, &pulumirpc.ConfigureRequest{
		Args: toStruct(bag{"version": h.version}), AcceptSecrets: true, AcceptResources: true,
		SendsOldInputs: true, SendsOldInputsToDelete: true, Id: &id, Urn: &urn, Name: &name, Type: &typ,
	}); err != nil {
		return failf("Configure without a key: %v", err)
	}
	var warning *logEntry
	waitFor(5*time.Second, func() bool {
		for _, l := range h.engine.logged()[since:] {
			if l.Severity == "WARNING" {
				l := l
				warning = &l
				return true
			}
		}
		return false
	})
	if warning == nil {
		return failf("no warning reached the engine's Log service in 5 s (logs: %v); plugin stderr: %s",
			h.engine.logged()[since:], p.stderr.String())
	}
	if !strings.Contains(warning.Message, "apiKey") {
		return failf("the keyless warning does not name apiKey: %q", warning.Message)
	}
	if warning.URN != providerURN {
		return failf("the keyless warning carries URN %q, want the provider's %q", warning.URN, providerURN)
	}
	// A call that needs the API fails with the reason, not a transport error.
	_, err = identity(ctx, p)
	if err == nil {
		return failf("getIdentity without a key succeeded")
	}
	if s := status.Convert(err); s.Code() == codes.Unavailable || s.Code() == codes.Internal || !strings.Contains(s.Message(), "apiKey") {
		return failf("getIdentity without a key: %v (want a status naming apiKey)", err)
	}
	for _, l := range h.engine.logged() {
		for _, key := range h.sim.APIKeys {
			if strings.Contains(l.Message, key) {
				return failf("an API key appears in an engine log: %q", l.Message)
			}
		}
	}
	return nil
}

func concurrent(ctx context.Context, h *harness) error {
	p, err := h.configured(ctx, h.key, false)
	if err != nil {
		return err
	}
	defer p.close()
	rules, err := h.sim.rules(h.key)
	if err != nil || len(rules) == 0 {
		return failf("no rule to read: %v", err)
	}
	seeded := rules[0]
	props := bag{"field": seeded.SearchField, "search": seeded.Search, "enabled": seeded.Enabled, "teamId": "team-acme"}
	before, err := h.sim.writes()
	if err != nil {
		return err
	}
	const n = 200
	errs := make([]error, n)
	var wg sync.WaitGroup
	start := make(chan struct{})
	for i := 0; i < n; i++ {
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			<-start
			c, cancel := context.WithTimeout(ctx, 30*time.Second)
			defer cancel()
			errs[i] = oneOf(c, p, i, seeded, props, h.version)
		}(i)
	}
	close(start)
	wg.Wait()
	var bad []string
	for i, e := range errs {
		if e != nil {
			bad = append(bad, fmt.Sprintf("call %d: %v", i, e))
		}
	}
	if len(bad) > 0 {
		return failf("%d of %d calls failed:\n%s", len(bad), n, strings.Join(bad[:min(len(bad), 10)], "\n"))
	}
	after, err := h.sim.writes()
	if err != nil {
		return err
	}
	if err := same("writes during 200 calls that only read", after-before, 0); err != nil {
		return err
	}
	return answers(ctx, p, "after 200 concurrent calls")
}

func min(a, b int) int {
	if a < b {
		return a
	}
	return b
}

// oneOf is call i of the concurrent scenario; each answer must be the one to its own request.
func oneOf(ctx context.Context, p *plugin, i int, seeded hvaRule, props bag, version string) error {
	switch i % 5 {
	case 0:
		search := fmt.Sprintf("concurrent-%03d-*", i)
		inputs, err := check(ctx, p, fmt.Sprintf("%s-%d", ruleURN, i), ruleType, bag{}, bag{"field": "name", "search": search})
		if err != nil {
			return err
		}
		return same("checked search", inputs["search"], search)
	case 1:
		team, err := identity(ctx, p)
		if err != nil {
			return err
		}
		return same("getIdentity's team", team, "team-acme")
	case 2:
		res, err := p.rp.Read(ctx, &pulumirpc.ReadRequest{Id: seeded.ID, Urn: fmt.Sprintf("%s-%d", ruleURN, i), Type: ruleType, Properties: toStruct(props), Inputs: toStruct(bag{"field": seeded.SearchField, "search": seeded.Search, "enabled": seeded.Enabled})})
		if err != nil {
			return err
		}
		return same("read id", res.GetId(), seeded.ID)
	case 3:
		olds := bag{"field": seeded.SearchField, "search": seeded.Search, "enabled": seeded.Enabled, "adoptExisting": false}
		news := bag{"field": seeded.SearchField, "search": fmt.Sprintf("moved-%03d-*", i), "enabled": seeded.Enabled, "adoptExisting": false}
		res, err := p.rp.Diff(ctx, &pulumirpc.DiffRequest{Id: seeded.ID, Urn: fmt.Sprintf("%s-%d", ruleURN, i), Type: ruleType, Olds: toStruct(props), News: toStruct(news), OldInputs: toStruct(olds)})
		if err != nil {
			return err
		}
		return same("diff", kinds(res), map[string]string{"search": "UPDATE_REPLACE"})
	default:
		info, err := p.rp.GetPluginInfo(ctx, &emptypb.Empty{})
		if err != nil {
			return err
		}
		return same("version", info.GetVersion(), version)
	}
}

func bigMessages(ctx context.Context, h *harness) error {
	p, err := h.configured(ctx, h.key, false)
	if err != nil {
		return err
	}
	defer p.close()
	before, err := h.sim.writes()
	if err != nil {
		return err
	}
	big := strings.Repeat("big-", 6*1024*1024) // 24 MiB
	req := &pulumirpc.CheckRequest{Urn: ruleURN + "-big", Type: ruleType, Olds: toStruct(bag{}), News: toStruct(bag{"field": "name", "search": big})}
	c, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	res, err := p.rp.Check(c, req)
	if err != nil {
		return failf("Check with a 24 MB input: %v", err)
	}
	if proto.Size(req) < 24<<20 || proto.Size(res) < 24<<20 {
		return failf("request %d bytes, response %d bytes: not both 24 MiB", proto.Size(req), proto.Size(res))
	}
	if got, _ := fromStruct(res.GetInputs())["search"].(string); got != big {
		return failf("the 24 MB search came back changed (%d bytes)", len(got))
	}
	named := false
	for _, f := range res.GetFailures() {
		named = named || f.GetProperty() == "search"
	}
	if !named {
		return failf("Check of a 24 MB search reports no failure on search: %v", res.GetFailures())
	}
	after, err := h.sim.writes()
	if err != nil {
		return err
	}
	if err := same("writes during the 24 MB Check", after-before, 0); err != nil {
		return err
	}
	return answers(ctx, p, "after 24 MB messages")
}

const identityRoute = "GET /v1/auth/me"

// delayIdentity makes the API answer GET /v1/auth/me only after ms milliseconds; it returns the
// number of those requests the API has received so far.
func (h *harness) delayIdentity(ms int) (int, error) {
	if err := h.sim.faults([]bag{{"kind": "latency", "method": "GET", "path": "/v1/auth/me", "latencyMs": ms}}); err != nil {
		return 0, err
	}
	return h.sim.requests(identityRoute)
}

// inFlight waits until the API has received n more identity requests than `base`: the calls are
// then mid-flight in the plugin, waiting on the API.
func (h *harness) inFlight(base, n int) error {
	got := 0
	if !waitFor(5*time.Second, func() bool { got, _ = h.sim.requests(identityRoute); return got >= base+n }) {
		return failf("the API received %d of the %d requests expected in 5 s", got-base, n)
	}
	return nil
}

// maxConcurrency is the plugin's client's default budget of API requests at once.
const maxConcurrency = 8

const apiDelay = 1500 * time.Millisecond

func deadline(ctx context.Context, h *harness) error {
	p, err := h.configured(ctx, h.key, false)
	if err != nil {
		return err
	}
	defer p.close()
	base, err := h.delayIdentity(int(apiDelay / time.Millisecond))
	if err != nil {
		return err
	}
	began := time.Now()
	c, cancel := context.WithTimeout(ctx, 500*time.Millisecond)
	_, err = identity(c, p)
	cancel()
	took := time.Since(began)
	if status.Code(err) != codes.DeadlineExceeded {
		return failf("a call past its deadline answered %v after %v, want DEADLINE_EXCEEDED", err, took)
	}
	if took > apiDelay {
		return failf("DEADLINE_EXCEEDED came after %v, later than the API's answer", took)
	}
	// The call had reached the API: it expired while the plugin waited on it.
	if err := h.inFlight(base, 1); err != nil {
		return err
	}
	// While the API request of the expired call is still pending, and after its answer arrives.
	c, cancel = context.WithTimeout(ctx, 2*time.Second)
	_, err = p.rp.GetPluginInfo(c, &emptypb.Empty{})
	cancel()
	if err != nil {
		return failf("GetPluginInfo while the expired call's API request is pending: %v", err)
	}
	time.Sleep(apiDelay - time.Since(began) + 300*time.Millisecond)
	if err := h.sim.faults(nil); err != nil {
		return err
	}
	return answers(ctx, p, "after a deadline expired mid-call")
}

func cancelled(ctx context.Context, h *harness) error {
	p, err := h.configured(ctx, h.key, false)
	if err != nil {
		return err
	}
	defer p.close()
	base, err := h.delayIdentity(int(apiDelay / time.Millisecond))
	if err != nil {
		return err
	}
	began := time.Now()
	const n = 10
	errs := make(chan error, n)
	c, cancel := context.WithCancel(ctx)
	defer cancel()
	for i := 0; i < n; i++ {
		go func() { _, err := identity(c, p); errs <- err }()
	}
	// Cancelled once the plugin waits on the API for as many as its budget lets it send.
	if err := h.inFlight(base, maxConcurrency); err != nil {
		return err
	}
	cancel()
	for i := 0; i < n; i++ {
		if err := <-errs; status.Code(err) != codes.Canceled {
			return failf("a call cancelled mid-flight answered %v, want CANCELED", err)
		}
	}
	if took := time.Since(began); took > apiDelay {
		return failf("the cancelled calls ended after %v, later than the API's answer", took)
	}
	c2, cancel2 := context.WithTimeout(ctx, 2*time.Second)
	_, err = p.rp.GetPluginInfo(c2, &emptypb.Empty{})
	cancel2()
	if err != nil {
		return failf("GetPluginInfo while the cancelled calls' API requests are pending: %v", err)
	}
	time.Sleep(apiDelay - time.Since(began) + 300*time.Millisecond)
	if err := h.sim.faults(nil); err != nil {
		return err
	}
	return answers(ctx, p, "after calls were cancelled mid-flight")
}

func reconnect(ctx context.Context, h *harness) error {
	p, err := h.configured(ctx, h.key, false)
	if err != nil {
		return err
	}
	defer p.close()
	base, err := h.delayIdentity(int(apiDelay / time.Millisecond))
	if err != nil {
		return err
	}
	began := time.Now()
	const n = 20
	errs := make(chan error, n)
	for i := 0; i < n; i++ {
		go func() {
			c, cancel := context.WithTimeout(ctx, 10*time.Second)
			defer cancel()
			_, err := identity(c, p)
			errs <- err
		}()
	}
	if err := h.inFlight(base, maxConcurrency); err != nil {
		return err
	}
	p.conn.Close()
	// grpc-go 1.33 ends them UNAVAILABLE ("transport is closing"), newer ones CANCELED ("the client
	// connection is closing"): either way on the client's side, at once, whatever the plugin does.
	for i := 0; i < n; i++ {
		if err := <-errs; status.Code(err) != codes.Canceled && status.Code(err) != codes.Unavailable {
			return failf("a call in flight when its connection closed answered %v, want CANCELED or UNAVAILABLE", err)
		}
	}
	if took := time.Since(began); took > apiDelay {
		return failf("the calls on the closed connection ended after %v, later than the API's answer", took)
	}
	// The engine's next connection to the same process (same port), configured as before.
	if err := p.dial(ctx); err != nil {
		return failf("reconnect: %v", err)
	}
	c, cancel := context.WithTimeout(ctx, 2*time.Second)
	_, err = p.rp.GetPluginInfo(c, &emptypb.Empty{})
	cancel()
	if err != nil {
		return failf("GetPluginInfo on the new connection while the old calls' API requests are pending: %v", err)
	}
	time.Sleep(apiDelay - time.Since(began) + 300*time.Millisecond)
	if err := h.sim.faults(nil); err != nil {
		return err
	}
	return answers(ctx, p, "on a new connection after the old one closed with calls in flight")
}

func unimplemented(ctx context.Context, h *harness) error {
	p, err := h.startPlugin(ctx)
	if err != nil {
		return err
	}
	defer p.close()
	for _, method := range []string{
		"/pulumirpc.ResourceProvider/NoSuchMethod",
		"/pulumirpc.NoSuchService/Check",
		"/pulumirpc.ResourceProvider/Construct",
	} {
		err := p.conn.Invoke(ctx, method, &emptypb.Empty{}, &emptypb.Empty{})
		if status.Code(err) != codes.Unimplemented {
			return failf("%s answered %v, want UNIMPLEMENTED", method, err)
		}
	}
	if _, err := p.rp.Handshake(ctx, &pulumirpc.ProviderHandshakeRequest{}); err != nil && status.Code(err) != codes.Unimplemented {
		return failf("Handshake answered %v: want an answer or UNIMPLEMENTED", err)
	}
	info, err := p.rp.GetPluginInfo(ctx, &emptypb.Empty{})
	if err != nil {
		return failf("GetPluginInfo after unknown methods: %v", err)
	}
	return same("version after unknown methods", info.GetVersion(), h.version)
}

func listRules(ctx context.Context, h *harness) error {
	p, err := h.configured(ctx, h.key, false)
	if err != nil {
		return err
	}
	defer p.close()
	rules, err := h.sim.rules(h.key)
	if err != nil {
		return err
	}
	want := map[string]bool{}
	for _, r := range rules {
		want[r.ID] = true
	}
	got := map[string]bool{}
	continuation, pages := "", 0
	for {
		pages++
		if pages > 100 {
			return failf("List did not end in 100 pages")
		}
		stream, err := p.rp.List(ctx, &pulumirpc.ListRequest{Token: ruleType, Query: toStruct(bag{}), PageSize: 2, ContinuationToken: continuation})
		if err != nil {
			return failf("List: %v", err)
		}
		continuation = ""
		for {
			res, err := stream.Recv()
			if err == io.EOF {
				break
			}
			if err != nil {
				return failf("List page %d: %v", pages, err)
			}
			if r := res.GetResult(); r != nil {
				if got[r.GetId()] {
					return failf("List returned %s twice", r.GetId())
				}
				got[r.GetId()] = true
			}
			if c := res.GetContinuation(); c != nil {
				continuation = c.GetContinuationToken()
			}
		}
		if continuation == "" {
			break
		}
	}
	if err := same("the ids List streamed", got, want); err != nil {
		return err
	}
	if len(want) > 2 && pages < 2 {
		return failf("List of %d rules with page size 2 came in %d page", len(want), pages)
	}
	return nil
}
