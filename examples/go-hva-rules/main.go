// examples/go-hva-rules: `pulumi up` builds and runs this program (runtime: go).
package main

import (
	"github.com/pulumi/pulumi/sdk/v3/go/pulumi"

	"secops.example/go-hva-rules/hvarules"
)

func main() {
	pulumi.Run(hvarules.Program)
}
