package e2e

import (
	"context"
	"io"
	"testing"

	"github.com/claude-pi/claude-pi/internal/appliance"
	"github.com/claude-pi/claude-pi/internal/appliance/appliancetest"
	"github.com/claude-pi/claude-pi/internal/cli"
)

// rig is one in-process claude-pi run on the sim board, with the
// scenario helpers of these tests as its methods.
type rig struct{ *appliancetest.Appliance }

func startAppliance(t testing.TB, dataDir string) *rig {
	t.Helper()
	return &rig{appliancetest.Start(t, dataDir)}
}

func startApplianceWith(t testing.TB, configure func(*appliance.Config)) *rig {
	t.Helper()
	return &rig{appliancetest.StartWith(t, configure)}
}

// run is the claude-pi command line, in this process.
func run(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) error {
	return cli.Run(ctx, args, cli.Stdio{In: stdin, Out: stdout, Err: stderr})
}
