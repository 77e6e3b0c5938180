package main

import (
	"context"
	"errors"
	"io"
)

// wireCommand is `claude-pi wire decode|encode`. (Being written.)
func wireCommand(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) error {
	return errors.New("wire: not built yet")
}
