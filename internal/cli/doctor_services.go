package cli

import (
	"context"
	"fmt"
	"time"

	"github.com/claude-pi/claude-pi/supervisor/ctlsock"
)

// servicesWait bounds the doctor's question to the running appliance: a
// wedged one must not hang the report (systemd's watchdog restarts it).
const servicesWait = 5 * time.Second

// services asks the running appliance for its process table: every
// service not RUNNING fails, naming its state and its line ("FATAL:
// store unreadable (down since 20:31, retry in 25s)"). A service stopped
// by hand (STOPPED) only warns, and so does an appliance that is not
// running or whose socket doctor may not open: the hardware checks still
// stand without it.
func (d doctor) services() []check {
	ctx, cancel := context.WithTimeout(context.Background(), servicesWait)
	defer cancel()
	rows, err := ctlsock.Rows(ctx, d.socket)
	if err != nil {
		return []check{{name: "services", detail: err.Error(), optional: true,
			fix: "start it (sudo systemctl start claude-pi), or run doctor as root or in the control group"}}
	}
	var cs []check
	for _, r := range rows {
		if r.State == "RUNNING" {
			continue
		}
		c := check{name: r.Name, detail: r.State + ": " + r.Description,
			fix: fmt.Sprintf("claude-pi retries it by itself; why it stopped: supervisorctl tail %s (or journalctl -u claude-pi); now: supervisorctl start %s", r.Name, r.Name)}
		if r.State == "STOPPED" {
			c.optional = true
			c.fix = "stopped by hand or autostart off: supervisorctl start " + r.Name
		}
		cs = append(cs, c)
	}
	if len(cs) == 0 {
		cs = append(cs, check{name: "services", ok: true, detail: fmt.Sprintf("all %d RUNNING", len(rows))})
	}
	return cs
}
