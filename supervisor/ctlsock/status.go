package ctlsock

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
)

// ErrNoSuchProcess is wrapped by Status's error when a name matched
// nothing; the table of the names that did match is still printed.
var ErrNoSuchProcess = errors.New("no such process")

// Status prints the process table exactly as `supervisorctl status
// [NAME...]` does: name padded to at least 33 columns, state padded to 10,
// then the actor's description. names may be plain names, "group:name",
// "group:*", or "all"; none means all.
func Status(ctx context.Context, socketPath string, names []string, w io.Writer) error {
	c := NewClient(socketPath)
	defer c.Close()
	v, err := c.CallContext(ctx, "supervisor.getVersion")
	if err != nil {
		return err
	}
	if v != APIVersion {
		return fmt.Errorf("%s speaks API version %v, want %s", socketPath, v, APIVersion)
	}
	v, err = c.CallContext(ctx, "supervisor.getAllProcessInfo")
	if err != nil {
		return err
	}
	all, err := infoStructs(v)
	if err != nil {
		return err
	}
	matched, bad := matchStatus(all, names)
	for _, line := range bad {
		if _, err := fmt.Fprintln(w, line); err != nil {
			return err
		}
	}
	if err := writeStatus(w, matched); err != nil {
		return err
	}
	if len(bad) > 0 {
		return fmt.Errorf("%w: %s", ErrNoSuchProcess, strings.Join(bad, "; "))
	}
	return nil
}

type statusRow struct {
	name, group, statename, description string
}

// Row is one line of the process table.
type Row struct {
	Name, State, Description string // State is supervisord's name: "RUNNING", "FATAL"
}

// Rows reads the process table from the appliance at socketPath, for a
// program that judges it (claude-pi doctor) rather than prints it.
func Rows(ctx context.Context, socketPath string) ([]Row, error) {
	c := NewClient(socketPath)
	defer c.Close()
	v, err := c.CallContext(ctx, "supervisor.getAllProcessInfo")
	if err != nil {
		return nil, err
	}
	all, err := infoStructs(v)
	if err != nil {
		return nil, err
	}
	out := make([]Row, len(all))
	for i, r := range all {
		out[i] = Row{Name: r.name, State: r.statename, Description: r.description}
	}
	return out, nil
}

func infoStructs(v any) ([]statusRow, error) {
	list, ok := v.([]any)
	if !ok {
		return nil, fmt.Errorf("getAllProcessInfo returned %s, want array", typeName(v))
	}
	rows := make([]statusRow, 0, len(list))
	for i, e := range list {
		st, ok := e.(map[string]any)
		if !ok {
			return nil, fmt.Errorf("getAllProcessInfo item %d is %s, want struct", i, typeName(e))
		}
		var r statusRow
		for key, dst := range map[string]*string{
			"name": &r.name, "group": &r.group, "statename": &r.statename, "description": &r.description,
		} {
			if *dst, ok = st[key].(string); !ok {
				return nil, fmt.Errorf("getAllProcessInfo item %d: %q is not a string", i, key)
			}
		}
		rows = append(rows, r)
	}
	return rows, nil
}

// matchStatus is supervisorctl's do_status name matching.
func matchStatus(all []statusRow, names []string) (matched []statusRow, bad []string) {
	for _, n := range names {
		if n == "all" {
			return all, nil
		}
	}
	if len(names) == 0 {
		return all, nil
	}
	for _, n := range names {
		group, process := splitNamespec(n)
		found := false
		for _, r := range all {
			if r.group == group && (process == "" || r.name == process) {
				matched = append(matched, r)
				found = true
			}
		}
		if !found {
			if process == "" {
				bad = append(bad, group+": ERROR (no such group)")
			} else {
				bad = append(bad, n+": ERROR (no such process)")
			}
		}
	}
	return matched, bad
}

func writeStatus(w io.Writer, rows []statusRow) error {
	width := 30
	specs := make([]string, len(rows))
	for i, r := range rows {
		specs[i] = r.name
		if r.group != r.name {
			specs[i] = r.group + ":" + r.name
		}
		width = max(width, len(specs[i]))
	}
	for i, r := range rows {
		if _, err := fmt.Fprintf(w, "%-*s%-10s%s\n", width+3, specs[i], r.statename, r.description); err != nil {
			return err
		}
	}
	return nil
}
