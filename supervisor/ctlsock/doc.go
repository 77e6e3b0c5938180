// Package ctlsock is the appliance's control socket: supervisord's XML-RPC
// interface (API 3.0) over HTTP on a unix socket, so that Debian's own
// supervisorctl manages the supervised actors unchanged:
//
//	supervisorctl -s unix:///run/claude-pi/supervisor.sock status
//
// POST /RPC2 carries XML-RPC; GET /logtail/NAME[/stdout] and
// GET /mainlogtail stream a log for `tail -f` and `maintail -f` as a
// chunked body that lasts until the client leaves. Method names, fault
// codes and strings, struct fields and log offset arithmetic follow
// supervisord 4.2 (supervisor/rpcinterface.py, xmlrpc.py, options.py), so
// supervisorctl prints its usual messages. Deliberate differences:
// stopAllProcesses and stopProcessGroup go in reverse start order; actors
// have one log stream, so stderr reads are NO_FILE as with supervisord's
// redirect_stderr; a live Description from the Backend replaces
// supervisord's computed "pid N, uptime ..." text.
//
// Client and Status talk to the same socket from Go, for
// `claude-pi status` on a device without Python.
package ctlsock
