// Command automate runs the program of examples/go-hva-rules through the Automation API: an inline
// program, served by the Go SDK's own language server, so it runs with the Pulumi CLI alone,
// without its Go language host (pulumi-language-go).
//
//	go run ./automate [--dir <project folder>] <preview|up|destroy>
//
// Stack dev, selected, not created (`pulumi stack init dev` and `pulumi config set` come first). The
// last line printed is one JSON object: ok, the changes (changeSummary of a preview, summary of an
// update), the stack's outputs, and the CLI's error when not ok.
package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"

	"github.com/pulumi/pulumi/sdk/v3/go/auto"
	"github.com/pulumi/pulumi/sdk/v3/go/auto/optdestroy"
	"github.com/pulumi/pulumi/sdk/v3/go/auto/optpreview"
	"github.com/pulumi/pulumi/sdk/v3/go/auto/optup"

	"secops.example/go-hva-rules/hvarules"
)

func run(ctx context.Context, stack auto.Stack, op string) (map[string]any, error) {
	switch op {
	case "preview":
		res, err := stack.Preview(ctx, optpreview.ProgressStreams(io.Discard))
		return map[string]any{"changeSummary": res.ChangeSummary, "stdout": res.StdOut}, err
	case "up":
		res, err := stack.Up(ctx, optup.ProgressStreams(io.Discard))
		if err != nil {
			return nil, err
		}
		outputs := map[string]any{}
		for k, v := range res.Outputs {
			outputs[k] = v.Value
		}
		return map[string]any{"summary": res.Summary.ResourceChanges, "outputs": outputs}, nil
	case "destroy":
		res, err := stack.Destroy(ctx, optdestroy.ProgressStreams(io.Discard))
		if err != nil {
			return nil, err
		}
		return map[string]any{"summary": res.Summary.ResourceChanges}, nil
	}
	return nil, fmt.Errorf("unknown operation %q (preview, up or destroy)", op)
}

func main() {
	dir := flag.String("dir", ".", "the project folder (its Pulumi.yaml)")
	stackName := flag.String("stack", "dev", "the stack")
	flag.Parse()
	ctx := context.Background()
	done := map[string]any{"ok": true}
	ws, err := auto.NewLocalWorkspace(ctx, auto.WorkDir(*dir), auto.Program(hvarules.Program))
	var result map[string]any
	if err == nil {
		var stack auto.Stack
		if stack, err = auto.SelectStack(ctx, *stackName, ws); err == nil {
			result, err = run(ctx, stack, flag.Arg(0))
		}
	}
	for k, v := range result {
		done[k] = v
	}
	if err != nil {
		done["ok"] = false
		done["message"] = err.Error()
	}
	line, _ := json.Marshal(done)
	fmt.Println(string(line))
	if err != nil {
		os.Exit(1)
	}
}
