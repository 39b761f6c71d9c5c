// Package libsandbox runs commands under sandbox-exec-launcher
// (docs/host-guide.md): a validated policy, a supervised run (--outcome-fd,
// --timeout) that leaves no process behind, and the parsed outcome
// (docs/api.md, "The outcome, schema 1"). Standard library only; Linux.
package libsandbox

import (
	"fmt"
	"strings"
)

// Modes and classes the launcher knows.
var (
	Modes   = []string{"sandbox", "no-network", "confine-fs", "read-only"}
	Classes = []string{"project", "research", "build", "offline", "media", "tool-server"}
)

// Policy is the launcher's policy flags (sandbox-exec-launcher --help). The
// zero value is --sandbox with the working directory as the project.
type Policy struct {
	Mode             string // "" means "sandbox"
	Project, Workdir string
	AddDirs          []string
	AddReads         []string
	Class            string // a --class NAME, or "tool-server"
	Output           string // --output DIR of class media
	Scratch          string
	WritableCaches   bool
	ProtectSecrets   bool
	Protect          []string
	NetEPERM         bool
	NoUserNamespaces bool
}

// PolicyError is a policy the launcher would refuse; nothing was spawned.
type PolicyError struct{ Msg string }

func (e *PolicyError) Error() string { return "libsandbox: policy: " + e.Msg }

func one(s string, set []string) bool {
	for _, x := range set {
		if s == x {
			return true
		}
	}
	return false
}

func checkPath(what, p string) error {
	if !strings.HasPrefix(p, "/") || strings.ContainsRune(p, 0) {
		return &PolicyError{fmt.Sprintf("%s: an absolute path without NUL bytes is needed, got %q", what, p)}
	}
	return nil
}

func checkPattern(p string) error {
	if p == "" || strings.ContainsRune(p, 0) {
		return &PolicyError{fmt.Sprintf("protect: a non-empty pattern without NUL bytes is needed, got %q", p)}
	}
	return nil
}

// Flags validates the policy and returns its launcher flags.
func (p Policy) Flags() ([]string, error) {
	mode := p.Mode
	if mode == "" {
		mode = "sandbox"
	}
	switch {
	case !one(mode, Modes):
		return nil, &PolicyError{fmt.Sprintf("mode %q is not one of %s", mode, strings.Join(Modes, ", "))}
	case p.Class != "" && !one(p.Class, Classes):
		return nil, &PolicyError{fmt.Sprintf("class %q is not one of %s", p.Class, strings.Join(Classes, ", "))}
	case mode == "read-only" && (p.Class != "" || p.WritableCaches || p.Output != ""):
		return nil, &PolicyError{"read-only is a fixed profile: it takes no class, writable caches or output"}
	case p.Class == "media" && p.Output == "":
		return nil, &PolicyError{"class media needs its output folder (Output)"}
	case p.Output != "" && p.Class != "media":
		return nil, &PolicyError{"Output is the output folder of class media only"}
	case len(p.AddReads) > 0 && p.Class == "":
		return nil, &PolicyError{"AddReads has no effect without a class"}
	}
	f := []string{"--" + mode}
	if p.Class == "tool-server" {
		f = append(f, "--tool-server")
	} else if p.Class != "" {
		f = append(f, "--class", p.Class)
	}
	for _, kv := range [][2]string{{"--project", p.Project}, {"--workdir", p.Workdir}, {"--output", p.Output}, {"--scratch", p.Scratch}} {
		if kv[1] != "" {
			if err := checkPath(kv[0][2:], kv[1]); err != nil {
				return nil, err
			}
			f = append(f, kv[0], kv[1])
		}
	}
	for _, list := range []struct {
		flag  string
		items []string
	}{{"--add-dir", p.AddDirs}, {"--add-read", p.AddReads}, {"--protect", p.Protect}} {
		for _, d := range list.items {
			check := checkPath(list.flag[2:], d)
			if list.flag == "--protect" {
				check = checkPattern(d)
			}
			if err := check; err != nil {
				return nil, err
			}
			if list.flag == "--add-read" && d == "/" {
				return nil, &PolicyError{"add-read: never /"}
			}
			f = append(f, list.flag, d)
		}
	}
	for _, b := range []struct {
		flag string
		on   bool
	}{{"--writable-caches", p.WritableCaches}, {"--protect-secrets", p.ProtectSecrets}, {"--net-eperm", p.NetEPERM}, {"--no-user-namespaces", p.NoUserNamespaces}} {
		if b.on {
			f = append(f, b.flag)
		}
	}
	return f, nil
}
