package ctlsock

import (
	"fmt"
	"sort"
	"strings"
	"time"
)

// APIVersion is what supervisor.getVersion returns. supervisorctl refuses
// to talk to anything else, so this is not our own version number.
const APIVersion = "3.0"

// SupervisorVersion is what `supervisorctl version` prints: the version of
// supervisord whose XML-RPC interface this socket reproduces.
const SupervisorVersion = "4.2.5"

// method is one XML-RPC method: its handler, arity and the one-line help
// that system.methodHelp returns, and its signature [return, params...].
type method struct {
	fn        func(r *rpc, p params) (any, *Fault)
	min, max  int
	signature []string
	help      string
}

// rpc serves XML-RPC calls against one Backend.
type rpc struct {
	b    Backend
	now  func() time.Time
	life lifecycle
	own  map[string]Method // Options.Methods
}

// methods is filled by init functions in rpc_*.go, one per method group.
var methods = map[string]method{}

func register(name string, m method) {
	if _, dup := methods[name]; dup {
		panic("BUG: XML-RPC method registered twice: " + name)
	}
	methods[name] = m
}

// call runs one method. Like supervisord (CVE-2017-11610), only
// "namespace.method" names are accepted: no traversal.
func (r *rpc) call(name string, args []any) (any, *Fault) {
	m, ok := methods[name]
	if own, isOwn := r.own[name]; !ok && isOwn {
		return callOwn(own, args)
	}
	if !ok || strings.Count(name, ".") != 1 {
		return nil, newFault(UnknownMethod, "")
	}
	if len(args) < m.min || len(args) > m.max {
		return nil, newFault(IncorrectParameters, "")
	}
	return m.fn(r, params(args))
}

// params gives typed access to positional arguments; a wrong type is
// INCORRECT_PARAMETERS, which is what supervisord's TypeError mapping
// produces for most misuse.
type params []any

func (p params) string(i int) (string, *Fault) {
	s, ok := p[i].(string)
	if !ok {
		return "", newFault(IncorrectParameters, fmt.Sprintf("argument %d: want string, got %s", i+1, typeName(p[i])))
	}
	return s, nil
}

func (p params) int(i int) (int, *Fault) {
	switch v := p[i].(type) {
	case int:
		return v, nil
	case bool: // Python's int(True) is 1; some clients send booleans
		if v {
			return 1, nil
		}
		return 0, nil
	}
	return 0, newFault(IncorrectParameters, fmt.Sprintf("argument %d: want int, got %s", i+1, typeName(p[i])))
}

// wait reads the optional trailing wait flag, true when absent.
func (p params) wait(i int) (bool, *Fault) {
	if i >= len(p) {
		return true, nil
	}
	switch v := p[i].(type) {
	case bool:
		return v, nil
	case int:
		return v != 0, nil
	}
	return false, newFault(IncorrectParameters, fmt.Sprintf("argument %d: want boolean, got %s", i+1, typeName(p[i])))
}

func typeName(v any) string {
	switch v.(type) {
	case nil:
		return "nil"
	case int:
		return "int"
	case bool:
		return "boolean"
	case string:
		return "string"
	case float64:
		return "double"
	case []byte:
		return "base64"
	case time.Time:
		return "dateTime"
	case []any:
		return "array"
	case map[string]any:
		return "struct"
	}
	return fmt.Sprintf("%T", v)
}

func init() {
	register("system.listMethods", method{
		fn: func(*rpc, params) (any, *Fault) {
			names := make([]string, 0, len(methods))
			for n := range methods {
				names = append(names, n)
			}
			sort.Strings(names)
			return names, nil
		},
		signature: []string{"array"},
		help:      "Return an array listing the available method names.",
	})
	register("system.methodHelp", method{
		fn: func(_ *rpc, p params) (any, *Fault) {
			name, f := p.string(0)
			if f != nil {
				return nil, f
			}
			m, ok := methods[name]
			if !ok {
				return nil, newFault(SignatureUnsupported, "")
			}
			return m.help, nil
		},
		min: 1, max: 1,
		signature: []string{"string", "string"},
		help:      "Return a string showing the method's documentation.",
	})
	register("system.methodSignature", method{
		fn: func(_ *rpc, p params) (any, *Fault) {
			name, f := p.string(0)
			if f != nil {
				return nil, f
			}
			m, ok := methods[name]
			if !ok || len(m.signature) == 0 {
				return nil, newFault(SignatureUnsupported, "")
			}
			return m.signature, nil
		},
		min: 1, max: 1,
		signature: []string{"array", "string"},
		help:      "Return an array [return type, param types...] for a method.",
	})
	register("system.multicall", method{
		fn:  (*rpc).multicall,
		min: 1, max: 1,
		signature: []string{"array", "array"},
		help:      "Run an array of {methodName, params} calls; return their results in order.",
	})
}

// multicall follows supervisord rather than the original multicall spec:
// a successful result is the bare value, not a one-element array, and a
// failure is a {faultCode, faultString} struct in its place.
func (r *rpc) multicall(p params) (any, *Fault) {
	calls, ok := p[0].([]any)
	if !ok {
		return nil, newFault(IncorrectParameters, "calls: want array, got "+typeName(p[0]))
	}
	results := make([]any, 0, len(calls))
	for _, c := range calls {
		v, f := r.oneOfMulticall(c)
		if f != nil {
			v = f.toStruct()
		}
		results = append(results, v)
	}
	return results, nil
}

func (r *rpc) oneOfMulticall(c any) (any, *Fault) {
	st, ok := c.(map[string]any)
	if !ok {
		return nil, newFault(IncorrectParameters, "call is not a struct")
	}
	name, ok := st["methodName"].(string)
	if !ok {
		return nil, newFault(IncorrectParameters, "No methodName")
	}
	if name == "system.multicall" {
		return nil, newFault(IncorrectParameters, "Recursive system.multicall forbidden")
	}
	args := []any{}
	if raw, present := st["params"]; present {
		if args, ok = raw.([]any); !ok {
			return nil, newFault(IncorrectParameters, "params: want array")
		}
	}
	return r.call(name, args)
}

// callOwn runs one of Options.Methods.
func callOwn(m Method, args []any) (any, *Fault) {
	strs := make([]string, len(args))
	for i := range args {
		s, f := params(args).string(i)
		if f != nil {
			return nil, f
		}
		strs[i] = s
	}
	out, err := m(strs)
	if err != nil {
		return nil, newFault(Failed, err.Error())
	}
	return out, nil
}
