// Command driver drives the secops plugin (bin/pulumi-resource-secops) the way the Pulumi engine
// does, with the engine's own gRPC library (grpc-go), against the secops simulator, and prints one JSON
// result per scenario on stdout: [{"name", "passed", "message", "ms"}]. Progress goes to stderr.
//
//	driver -root <repository> [-node <node executable>] [-only <substring>]
//
// Built in GOPATH mode by tests/interop/grpc-go.test.ts (see tests/interop/README.md).
package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io/ioutil"
	"os"
	"path/filepath"
	"runtime/debug"
	"strings"
	"sync"
	"time"
)

// harness is what every scenario shares: the simulator, the engine, the plugins started (all stopped
// at the end), and the state the deployment steps hand each other.
type harness struct {
	root, node string
	version    string
	sim        *simulator
	engine     *fakeEngine
	key        string // ADMIN key of team-acme

	mu      sync.Mutex
	plugins []*plugin

	deployed *deployment // set by "up", used by the steps after it
}

func (h *harness) track(p *plugin) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.plugins = append(h.plugins, p)
}

func (h *harness) stopAll() {
	h.mu.Lock()
	defer h.mu.Unlock()
	for _, p := range h.plugins {
		p.close()
	}
	h.plugins = nil
}

type result struct {
	Name    string `json:"name"`
	Passed  bool   `json:"passed"`
	Message string `json:"message"`
	Ms      int64  `json:"ms"`
}

type scenario struct {
	name  string // short and stable: tests/interop/grpc-go.test.ts lists them
	title string // what it shows
	run   func(ctx context.Context, h *harness) error
}

// failf makes a scenario's failure message.
func failf(format string, args ...interface{}) error { return fmt.Errorf(format, args...) }

func runScenario(h *harness, s scenario) (r result) {
	start := time.Now()
	r.Name = s.name
	defer func() {
		if p := recover(); p != nil {
			r.Passed, r.Message = false, fmt.Sprintf("panic: %v\n%s", p, debug.Stack())
		}
		r.Ms = time.Since(start).Milliseconds()
		// Faults a scenario set never leak into the next one.
		_ = h.sim.faults(nil)
	}()
	ctx, cancel := context.WithTimeout(context.Background(), 40*time.Second)
	defer cancel()
	if err := s.run(ctx, h); err != nil {
		return result{Name: s.name, Message: err.Error()}
	}
	return result{Name: s.name, Passed: true, Message: "ok"}
}

func main() {
	root := flag.String("root", ".", "the repository (bin/pulumi-resource-secops, simulator/dist/simulator/cli.js)")
	node := flag.String("node", "node", "the node executable")
	only := flag.String("only", "", "run only the scenarios whose name contains this")
	flag.Parse()
	abs, err := filepath.Abs(*root)
	if err != nil {
		fatal(err)
	}
	// The create-intent journal of the plugins goes to a temporary folder, never to ~/.pulumi.
	if os.Getenv("SECOPS_INTENT_DIR") == "" {
		dir, err := ioutil.TempDir("", "secops-interop-intents-")
		if err != nil {
			fatal(err)
		}
		defer os.RemoveAll(dir)
		os.Setenv("SECOPS_INTENT_DIR", dir)
	}
	h := &harness{root: abs, node: *node}
	var pkg struct {
		Version string `json:"version"`
	}
	if b, err := ioutil.ReadFile(filepath.Join(abs, "package.json")); err != nil || json.Unmarshal(b, &pkg) != nil {
		fatal(fmt.Errorf("cannot read the package version from %s/package.json", abs))
	}
	h.version = pkg.Version
	if h.engine, err = startEngine(); err != nil {
		fatal(err)
	}
	defer h.engine.server.Stop()
	if h.sim, err = startSimulator(abs, *node); err != nil {
		fatal(err)
	}
	defer h.sim.stop()
	h.key = h.sim.APIKeys["admin"]

	var results []result
	for _, s := range scenarios() {
		if *only != "" && !strings.Contains(s.name, *only) {
			continue
		}
		fmt.Fprintf(os.Stderr, "interop: %s (%s) ...\n", s.name, s.title)
		r := runScenario(h, s)
		fmt.Fprintf(os.Stderr, "interop: %s: passed=%v (%d ms) %s\n", s.name, r.Passed, r.Ms, firstLine(r.Message))
		results = append(results, r)
	}
	h.stopAll()
	out, _ := json.MarshalIndent(results, "", "  ")
	fmt.Println(string(out))
}

func scenarios() []scenario {
	return append(append(deploymentScenarios(), transportScenarios()...), protocolScenarios()...)
}

func firstLine(s string) string {
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		return s[:i]
	}
	return s
}

func fatal(err error) {
	fmt.Fprintf(os.Stderr, "interop driver: %v\n", err)
	os.Exit(2)
}
