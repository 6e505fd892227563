package main

// The parts the engine brings to a deployment: the plugin process and its gRPC connection (as
// `newPlugin`/`dialPlugin` in sdk/go/common/resource/plugin/plugin.go do it), the engine's own `Log`
// service, and the simulator standing in for the API (with its control API under /__sim/).

import (
	"bufio"
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/ioutil"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	pulumirpc "github.com/pulumi/pulumi/sdk/v3/proto/go"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/connectivity"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/types/known/emptypb"
	"google.golang.org/protobuf/types/known/structpb"
)

// maxRPCMessageSize is the engine's limit (rpcutil.maxRPCMessageSize: 400 MiB).
const maxRPCMessageSize = 400 * 1024 * 1024

// The signature of a secret value in a Struct (Pulumi's resource.SecretSig).
const (
	sigKey    = "4dabf18193072939515e22adb298388d"
	sigSecret = "1b47061264138c4ac30d75fd1eb44270"
)

// unknown is the value Pulumi sends for an input not known during a preview.
const unknown = "04da6b54-80e4-46f7-96ec-b56ff0331ba9"

// secret wraps a value as Pulumi's secret signature object.
func secret(v interface{}) map[string]interface{} {
	return map[string]interface{}{sigKey: sigSecret, "value": v}
}

// bag is a property map as the plugin sends and receives it (a protobuf Struct).
type bag = map[string]interface{}

func toStruct(m bag) *structpb.Struct {
	if m == nil {
		return nil
	}
	s, err := structpb.NewStruct(m)
	if err != nil {
		panic(err)
	}
	return s
}

func fromStruct(s *structpb.Struct) bag {
	if s == nil {
		return bag{}
	}
	return s.AsMap()
}

// ---------------------------------------------------------------------------------------------------
// The engine's Log service.

type logEntry struct {
	Severity string
	Message  string
	URN      string
}

type fakeEngine struct {
	pulumirpc.UnimplementedEngineServer
	addr   string
	server *grpc.Server
	mu     sync.Mutex
	logs   []logEntry
}

func (e *fakeEngine) Log(_ context.Context, req *pulumirpc.LogRequest) (*emptypb.Empty, error) {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.logs = append(e.logs, logEntry{req.GetSeverity().String(), req.GetMessage(), req.GetUrn()})
	return &emptypb.Empty{}, nil
}

// logged returns the logs received so far.
func (e *fakeEngine) logged() []logEntry {
	e.mu.Lock()
	defer e.mu.Unlock()
	return append([]logEntry(nil), e.logs...)
}

func startEngine() (*fakeEngine, error) {
	lis, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	e := &fakeEngine{addr: lis.Addr().String(), server: grpc.NewServer(
		grpc.MaxRecvMsgSize(maxRPCMessageSize), grpc.MaxSendMsgSize(maxRPCMessageSize))}
	pulumirpc.RegisterEngineServer(e.server, e)
	go func() { _ = e.server.Serve(lis) }()
	return e, nil
}

// ---------------------------------------------------------------------------------------------------
// The plugin process.

type plugin struct {
	cmd    *exec.Cmd
	port   int
	conn   *grpc.ClientConn
	rp     pulumirpc.ResourceProviderClient
	stderr *lockedBuffer
	exited chan struct{}

	// hello is the Handshake the engine sends as its first call (its readiness probe); handshake and
	// handshakeErr are what the plugin answered to it on the last dial.
	hello        *pulumirpc.ProviderHandshakeRequest
	handshake    *pulumirpc.ProviderHandshakeResponse
	handshakeErr error
}

type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// pluginEnv is this process's environment without the provider's own settings: a key must come from
// the provider's configuration, never from the environment of the test run.
func pluginEnv() []string {
	var out []string
	for _, kv := range os.Environ() {
		if strings.HasPrefix(kv, "SECOPS_API_KEY=") || strings.HasPrefix(kv, "SECOPS_BASE_URL=") {
			continue
		}
		out = append(out, kv)
	}
	return out
}

// startPlugin starts `node bin/pulumi-resource-secops [flags...] <engine address>` and reads its port
// from the first line of stdout, then dials it.
func (h *harness) startPlugin(ctx context.Context, flags ...string) (*plugin, error) {
	args := append([]string{filepath.Join(h.root, "bin", "pulumi-resource-secops")}, flags...)
	args = append(args, h.engine.addr)
	cmd := exec.Command(h.node, args...)
	cmd.Dir = h.root
	cmd.Env = pluginEnv()
	cmd.SysProcAttr = orphanless()
	dir := filepath.Join(h.root, "bin")
	p := &plugin{cmd: cmd, stderr: &lockedBuffer{}, exited: make(chan struct{}),
		// As provider_plugin.go's NewProvider sends it to a plugin it started: the engine's address, the
		// plugin's directory as root and program directory, and the protocol flags this engine supports.
		hello: &pulumirpc.ProviderHandshakeRequest{
			EngineAddress: h.engine.addr, RootDirectory: &dir, ProgramDirectory: &dir,
			ConfigureWithUrn: true, InvokeWithPreview: true,
		}}
	cmd.Stderr = p.stderr
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	go func() { _ = cmd.Wait(); close(p.exited) }()
	h.track(p)
	lines := make(chan string, 1)
	go func() {
		r := bufio.NewReader(stdout)
		line, _ := r.ReadString('\n')
		lines <- line
		_, _ = io.Copy(ioutil.Discard, r)
	}()
	select {
	case line := <-lines:
		port, err := strconv.Atoi(strings.TrimSpace(line))
		if err != nil {
			p.kill()
			return nil, fmt.Errorf("the plugin's first stdout line is %q, not a port; stderr: %s", line, p.stderr.String())
		}
		p.port = port
	case <-time.After(20 * time.Second):
		p.kill()
		return nil, fmt.Errorf("the plugin printed no port in 20 s; stderr: %s", p.stderr.String())
	}
	if err := p.dial(ctx); err != nil {
		p.kill()
		return nil, err
	}
	return p, nil
}

// dial connects as the engine's dialPlugin does: insecure, the engine's message limits, then wait until
// the connection is Ready and a first call (the engine's Handshake) answers anything but UNAVAILABLE.
func (p *plugin) dial(ctx context.Context) error {
	conn, res, err := dialPlugin(ctx, p.port, p.hello)
	if err != nil {
		return err
	}
	p.conn = conn
	p.rp = pulumirpc.NewResourceProviderClient(conn)
	p.handshake, p.handshakeErr = res, nil
	if res == nil {
		p.handshakeErr = status.Error(codes.Unimplemented, "Handshake is not implemented")
	}
	return nil
}

// dialPlugin returns the connection and the plugin's answer to Handshake (nil when UNIMPLEMENTED).
func dialPlugin(ctx context.Context, port int, hello *pulumirpc.ProviderHandshakeRequest) (*grpc.ClientConn, *pulumirpc.ProviderHandshakeResponse, error) {
	conn, err := grpc.DialContext(ctx, "127.0.0.1:"+strconv.Itoa(port),
		grpc.WithInsecure(),
		grpc.WithDefaultCallOptions(grpc.MaxCallRecvMsgSize(maxRPCMessageSize), grpc.MaxCallSendMsgSize(maxRPCMessageSize)))
	if err != nil {
		return nil, nil, fmt.Errorf("could not dial the plugin: %w", err)
	}
	timeout, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	rp := pulumirpc.NewResourceProviderClient(conn)
	for {
		s := conn.GetState()
		if s == connectivity.Ready {
			for {
				res, err := rp.Handshake(timeout, hello)
				if err == nil || status.Code(err) == codes.Unimplemented {
					return conn, res, nil // UNIMPLEMENTED: a plugin without Handshake, the engine goes on the old way
				}
				if status.Code(err) != codes.Unavailable {
					conn.Close()
					return nil, nil, fmt.Errorf("the plugin did not come alive: %w", err)
				}
				time.Sleep(10 * time.Millisecond)
			}
		}
		if !conn.WaitForStateChange(timeout, s) {
			conn.Close()
			return nil, nil, errors.New("the plugin did not begin responding to RPC connections")
		}
	}
}

// alive reports whether the process still runs.
func (p *plugin) alive() bool {
	select {
	case <-p.exited:
		return false
	default:
		return true
	}
}

// close ends the plugin as the engine does: closes the connection, then SIGINT, then SIGKILL.
func (p *plugin) close() {
	if p.conn != nil {
		p.conn.Close()
	}
	if !p.alive() {
		return
	}
	_ = p.cmd.Process.Signal(syscall.SIGINT)
	select {
	case <-p.exited:
	case <-time.After(3 * time.Second):
		p.kill()
	}
}

func (p *plugin) kill() {
	if p.alive() {
		_ = p.cmd.Process.Kill()
		<-p.exited
	}
}

// orphanless makes a child end with the driver, even when the driver is killed (a test's timeout).
func orphanless() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Pdeathsig: syscall.SIGTERM}
}

// ---------------------------------------------------------------------------------------------------
// The simulator.

type simulator struct {
	cmd     *exec.Cmd
	exited  chan struct{}
	URL     string            `json:"url"`
	APIKeys map[string]string `json:"apiKeys"`
	Token   string            `json:"controlToken"`
	stderr  *lockedBuffer
}

func startSimulator(root, node string) (*simulator, error) {
	b := make([]byte, 12)
	_, _ = rand.Read(b)
	token := "interop-" + hex.EncodeToString(b)
	cmd := exec.Command(node, filepath.Join(root, "simulator", "dist", "simulator", "cli.js"),
		"--json", "--port", "0", "--seed", "33", "--control-token", token)
	cmd.Dir = root
	cmd.SysProcAttr = orphanless()
	s := &simulator{cmd: cmd, exited: make(chan struct{}), stderr: &lockedBuffer{}}
	cmd.Stderr = s.stderr
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	go func() { _ = cmd.Wait(); close(s.exited) }()
	lines := make(chan string, 1)
	go func() {
		r := bufio.NewReader(stdout)
		line, _ := r.ReadString('\n')
		lines <- line
		_, _ = io.Copy(ioutil.Discard, r)
	}()
	select {
	case line := <-lines:
		if err := json.Unmarshal([]byte(line), s); err != nil || s.URL == "" {
			s.stop()
			return nil, fmt.Errorf("secops-sim printed %q; stderr: %s", line, s.stderr.String())
		}
	case <-time.After(20 * time.Second):
		s.stop()
		return nil, fmt.Errorf("secops-sim did not start in 20 s; stderr: %s", s.stderr.String())
	}
	return s, nil
}

func (s *simulator) stop() {
	select {
	case <-s.exited:
		return
	default:
	}
	_ = s.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-s.exited:
	case <-time.After(3 * time.Second):
		_ = s.cmd.Process.Kill()
		<-s.exited
	}
}

var httpClient = &http.Client{Timeout: 10 * time.Second}

// call sends a request to the simulator; the header is the team's key, or the control token for /__sim/.
func (s *simulator) call(method, path, key string, body interface{}, out interface{}) (int, error) {
	var rd io.Reader
	if body != nil {
		b, _ := json.Marshal(body)
		rd = bytes.NewReader(b)
	}
	req, err := http.NewRequest(method, s.URL+path, rd)
	if err != nil {
		return 0, err
	}
	if strings.HasPrefix(path, "/__sim/") {
		req.Header.Set("x-sim-control", s.Token)
	} else {
		req.Header.Set("Authorization", "Bearer "+key)
	}
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	res, err := httpClient.Do(req)
	if err != nil {
		return 0, err
	}
	defer res.Body.Close()
	b, err := ioutil.ReadAll(res.Body)
	if err != nil {
		return res.StatusCode, err
	}
	if out != nil && res.StatusCode < 300 {
		if err := json.Unmarshal(b, out); err != nil {
			return res.StatusCode, fmt.Errorf("%s %s: %v in %q", method, path, err, b)
		}
	}
	return res.StatusCode, nil
}

// hvaRule is a rule as the API answers it.
type hvaRule struct {
	ID          string `json:"id"`
	TeamID      string `json:"teamId"`
	Enabled     bool   `json:"enabled"`
	SearchField string `json:"searchField"`
	Search      string `json:"search"`
}

// rules lists the team's rules through the API (GET /endpoint/hva/automation) with the team's key.
func (s *simulator) rules(key string) ([]hvaRule, error) {
	var rules []hvaRule
	code, err := s.call("GET", "/endpoint/hva/automation", key, nil, &rules)
	if err == nil && code != 200 {
		err = fmt.Errorf("GET /endpoint/hva/automation answered %d", code)
	}
	return rules, err
}

// rule reads one rule through the API; nil when the API answers 404.
func (s *simulator) rule(key, id string) (*hvaRule, error) {
	var r hvaRule
	code, err := s.call("GET", "/endpoint/hva/automation/"+id, key, nil, &r)
	if err != nil {
		return nil, err
	}
	if code == 404 {
		return nil, nil
	}
	if code != 200 {
		return nil, fmt.Errorf("GET /endpoint/hva/automation/%s answered %d", id, code)
	}
	return &r, nil
}

// user reads a directory user through the API (GET /v1/directory/{id}).
func (s *simulator) user(key, id string) (bag, error) {
	var u bag
	code, err := s.call("GET", "/v1/directory/"+id, key, nil, &u)
	if err == nil && code != 200 {
		err = fmt.Errorf("GET /v1/directory/%s answered %d", id, code)
	}
	return u, err
}

// writes is the number of writes the simulator has processed so far.
func (s *simulator) writes() (int, error) {
	var st struct {
		Writes int `json:"writes"`
	}
	code, err := s.call("GET", "/__sim/stats", "", nil, &st)
	if err == nil && code != 200 {
		err = fmt.Errorf("GET /__sim/stats answered %d", code)
	}
	return st.Writes, err
}

// requests is how many requests the simulator has received on a route ("GET /v1/auth/me").
func (s *simulator) requests(route string) (int, error) {
	var st struct {
		Requests map[string]int `json:"requests"`
	}
	code, err := s.call("GET", "/__sim/stats", "", nil, &st)
	if err == nil && code != 200 {
		err = fmt.Errorf("GET /__sim/stats answered %d", code)
	}
	return st.Requests[route], err
}

// faults replaces the simulator's fault rules (nil clears them).
func (s *simulator) faults(rules []bag) error {
	method, body := "PUT", interface{}(rules)
	if rules == nil {
		method, body = "DELETE", nil
	}
	code, err := s.call(method, "/__sim/faults", "", body, nil)
	if err == nil && code != 200 {
		err = fmt.Errorf("%s /__sim/faults answered %d", method, code)
	}
	return err
}

// patchRule changes a rule out of band (drift, as a person in the product's console makes it).
func (s *simulator) patchRule(id string, change bag) error {
	code, err := s.call("PATCH", "/__sim/hva/"+id, "", change, nil)
	if err == nil && code != 200 {
		err = fmt.Errorf("PATCH /__sim/hva/%s answered %d", id, code)
	}
	return err
}

// allRequests is how many requests the simulator has received, on every route of its API.
func (s *simulator) allRequests() (int, error) {
	var st struct {
		Requests map[string]int `json:"requests"`
	}
	code, err := s.call("GET", "/__sim/stats", "", nil, &st)
	if err == nil && code != 200 {
		err = fmt.Errorf("GET /__sim/stats answered %d", code)
	}
	n := 0
	for _, c := range st.Requests {
		n += c
	}
	return n, err
}

// createRule makes a rule through the API (PUT /endpoint/hva/automation) with the team's key.
func (s *simulator) createRule(key, field, search string) (hvaRule, error) {
	var r hvaRule
	code, err := s.call("PUT", "/endpoint/hva/automation", key, bag{"field": field, "search": search}, &r)
	if err == nil && code != 201 {
		err = fmt.Errorf("PUT /endpoint/hva/automation %q answered %d", search, code)
	}
	return r, err
}

// enableRule sets a rule's enabled flag through the API (PATCH /endpoint/hva/automation/{id}).
func (s *simulator) enableRule(key, id string, enabled bool) error {
	code, err := s.call("PATCH", "/endpoint/hva/automation/"+id, key, bag{"enabled": enabled}, nil)
	if err == nil && code != 200 {
		err = fmt.Errorf("PATCH /endpoint/hva/automation/%s answered %d", id, code)
	}
	return err
}

// deleteRule deletes a rule through the API (DELETE /endpoint/hva/automation/{id}).
func (s *simulator) deleteRule(key, id string) error {
	code, err := s.call("DELETE", "/endpoint/hva/automation/"+id, key, nil, nil)
	if err == nil && code != 204 && code != 404 {
		err = fmt.Errorf("DELETE /endpoint/hva/automation/%s answered %d", id, code)
	}
	return err
}

// users lists the team's directory users through the API (GET /v1/directory) with the team's key.
func (s *simulator) users(key string) ([]bag, error) {
	var users []bag
	code, err := s.call("GET", "/v1/directory", key, nil, &users)
	if err == nil && code != 200 {
		err = fmt.Errorf("GET /v1/directory answered %d", code)
	}
	return users, err
}
