package main

import (
	"context"
	"errors"
	"io"
)

// buddyCommand is `claude-pi buddy decode`. (Being written.)
func buddyCommand(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) error {
	return errors.New("buddy: not built yet")
}
