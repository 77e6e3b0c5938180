package supervisor_test

import (
	"github.com/claude-pi/claude-pi/supervisor"
	"github.com/claude-pi/claude-pi/supervisor/ctlsock"
)

// The control socket serves a Tree; ctlsock imports this package, so the
// check lives in an external test package.
var _ ctlsock.Backend = (*supervisor.Tree)(nil)
