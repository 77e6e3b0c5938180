package e2e

import (
	"context"
	"io"
	"testing"

	"github.com/claude-pi/claude-pi/internal/appliance"
	"github.com/claude-pi/claude-pi/internal/appliance/appliancetest"
	"github.com/claude-pi/claude-pi/internal/cli"
	"github.com/claude-pi/claude-pi/internal/cli/clitest"
)

// The appliance's configuration, as the scenarios change it.
type (
	Config        = appliance.Config
	Duration      = appliance.Duration
	ServiceConfig = appliance.ServiceConfig
)

// e2e skips an end-to-end test under -short (appliancetest.E2E).
func e2e(t *testing.T) { t.Helper(); appliancetest.E2E(t) }

// writeFile writes s to path or fails the test (appliancetest.WriteFile).
func writeFile(t *testing.T, path, s string) { t.Helper(); appliancetest.WriteFile(t, path, s) }

// rig is one in-process claude-pi run on the sim board, with the
// scenario helpers of these tests as its methods.
type rig struct{ *appliancetest.Appliance }

func startAppliance(t testing.TB, dataDir string) *rig {
	t.Helper()
	return &rig{appliancetest.Start(t, dataDir)}
}

func startApplianceWith(t testing.TB, configure func(*Config)) *rig {
	t.Helper()
	return &rig{appliancetest.StartWith(t, configure)}
}

// run is the claude-pi command line, in this process.
func run(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) error {
	return cli.Run(ctx, args, cli.Stdio{In: stdin, Out: stdout, Err: stderr})
}

// The hooks as Claude Code runs them, in this process.
const (
	hookPermissionJSON  = clitest.HookPermissionJSON
	hookPostToolUseJSON = clitest.HookPostToolUseJSON
)

func startHook(dir string, args []string, input string) *clitest.Hook {
	return clitest.StartHook(run, dir, args, input)
}
