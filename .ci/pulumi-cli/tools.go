//go:build tools

// Package tools pins the packages built by build.sh, so `go mod tidy` keeps their dependencies.
package tools

import (
	_ "github.com/pulumi/pulumi/pkg/v3/cmd/pulumi"
)
