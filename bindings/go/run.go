package libsandbox

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"strconv"
	"sync"
	"syscall"
	"time"
)

// ExpectedVersion is the oldest launcher this package works with.
var ExpectedVersion = [3]int{0, 1, 0}

const (
	// After a cancellation the command has this long to end on SIGTERM
	// before the launcher is killed (the supervised run dies with it).
	grace = 2500 * time.Millisecond
	// How long past the launcher's own --timeout the host waits before ending the run itself.
	backstop = 15 * time.Second
	// How long the launcher's process group may outlive it (its supervisor
	// ending what the command left) before it is killed outright.
	groupGoneWait = 10 * time.Second
)

// LauncherError: the launcher is missing, not executable, or too old.
type LauncherError struct{ Msg string }

func (e *LauncherError) Error() string { return "libsandbox: " + e.Msg }

// Record is one refusal (docs/api.md, "The outcome, schema 1").
type Record struct {
	Kind       string  `json:"kind"`
	Certain    bool    `json:"certain"`
	Syscall    *string `json:"syscall"`
	ABI        *string `json:"abi"`
	Family     *int    `json:"family"`
	FamilyName *string `json:"family_name"`
	Type       *int    `json:"type"`
	TypeName   *string `json:"type_name"`
	Path       *string `json:"path"`
	PID        *int    `json:"pid"`
	Comm       *string `json:"comm"`
	Action     *string `json:"action"`
	Count      int     `json:"count"`
	Text       *string `json:"text"`
}

// Outcome is what a run ended with. Ran is false when the launcher refused
// before the command started (126: the sandbox could not be applied; 127: not
// found): then ExitCode is the launcher's status and Stderr says why.
type Outcome struct {
	Ran            bool
	Status         int // the launcher's own exit status (128+N for signal N)
	ExitCode       *int
	Signal         *int
	SignalName     *string
	Stdout, Stderr []byte
	Records        []Record
	Sandbox        *string
	TimedOut       bool
	// The resource limit that ended the run ("memory", "pids", "cpu", "file-size",
	// "timeout"), nil when none; LimitCertain: the kernel's counters say so.
	Limit             *string
	LimitCertain      bool
	Summary, Warning  *string
	LeftoverProcesses int
	// SandboxFailure: the sandbox's own supervisor failed after the command
	// started and ended the run (its exit 126 is the sandbox's), or, when it
	// says "after the command had exited", failed while ending what the
	// command left (the status is the command's); nil otherwise.
	SandboxFailure *string
	// SandboxFailed: "run" when that failure made the status the sandbox's
	// (126), "after_exit" when the status is the command's own; nil: none.
	SandboxFailed *string
	Raw            map[string]any
}

// Certain returns the refusals the kernel reported.
func (o *Outcome) Certain() []Record { return o.filter(true) }

// Hedged returns the refusals inferred from the command's words.
func (o *Outcome) Hedged() []Record { return o.filter(false) }

func (o *Outcome) filter(certain bool) []Record {
	var r []Record
	for _, x := range o.Records {
		if x.Certain == certain {
			r = append(r, x)
		}
	}
	return r
}

var (
	versionMu    sync.Mutex
	versionCache = map[string][3]int{}
	versionRe    = regexp.MustCompile(`(\d+)\.(\d+)\.(\d+)`)
)

func checkVersion(path string, st os.FileInfo) error {
	key := fmt.Sprintf("%s\x00%d\x00%d", path, st.Sys().(*syscall.Stat_t).Ino, st.ModTime().UnixNano())
	versionMu.Lock()
	got, ok := versionCache[key]
	versionMu.Unlock()
	if !ok {
		out, err := exec.Command(path, "--version").Output()
		if err != nil {
			return &LauncherError{fmt.Sprintf("launcher %s cannot be run: %v", path, err)}
		}
		m := versionRe.FindStringSubmatch(string(out))
		if m == nil {
			return &LauncherError{fmt.Sprintf("launcher %s printed no version (--version said %q)", path, out)}
		}
		for i := range got {
			got[i], _ = strconv.Atoi(m[i+1])
		}
		versionMu.Lock()
		versionCache[key] = got
		versionMu.Unlock()
	}
	for i := range got {
		if got[i] != ExpectedVersion[i] {
			if got[i] < ExpectedVersion[i] {
				return &LauncherError{fmt.Sprintf("launcher %s is version %d.%d.%d; this package needs %d.%d.%d or later: install a newer sandbox-exec-launcher",
					path, got[0], got[1], got[2], ExpectedVersion[0], ExpectedVersion[1], ExpectedVersion[2])}
			}
			break
		}
	}
	return nil
}

// FindLauncher returns the launcher: explicit, else $SANDBOX_EXEC_LAUNCHER,
// else PATH; its version checked.
func FindLauncher(explicit string) (string, error) {
	p, where := explicit, "the explicit path"
	if p == "" {
		p, where = os.Getenv("SANDBOX_EXEC_LAUNCHER"), "$SANDBOX_EXEC_LAUNCHER"
	}
	if p == "" {
		where = "PATH"
		var err error
		if p, err = exec.LookPath("sandbox-exec-launcher"); err != nil {
			return "", &LauncherError{"sandbox-exec-launcher not found: pass its path, set SANDBOX_EXEC_LAUNCHER, or put it on PATH"}
		}
	}
	st, err := os.Stat(p)
	if err != nil || !st.Mode().IsRegular() || syscall.Access(p, 1) != nil {
		return "", &LauncherError{fmt.Sprintf("sandbox-exec-launcher from %s (%s) is not an executable file", where, p)}
	}
	if abs, err := filepath.Abs(p); err == nil {
		p = abs
	}
	return p, checkVersion(p, st)
}

// Options of a run. The zero value runs with the default policy, no timeout,
// the host's directory and environment, and no input.
type Options struct {
	Policy   Policy
	Timeout  time.Duration // the launcher ends the whole tree (Status 124, TimedOut)
	Dir      string
	Env      []string // nil: the host's environment
	Stdin    []byte
	Launcher string
}

func groupAlive(pgid int) bool { return syscall.Kill(-pgid, 0) != syscall.ESRCH }

// The launcher's supervisor (same process group) ends what the command left
// after the launcher dies: wait for the group to empty, then kill what remains.
func groupGone(pgid int) {
	deadline := time.Now().Add(groupGoneWait)
	for groupAlive(pgid) && time.Now().Before(deadline) {
		time.Sleep(20 * time.Millisecond)
	}
	_ = syscall.Kill(-pgid, syscall.SIGKILL)
}

// Run runs argv under the launcher, supervised. When it returns the process
// tree is gone, also when ctx is cancelled (then the error wraps ctx.Err()).
func Run(ctx context.Context, argv []string, opts Options) (*Outcome, error) {
	if len(argv) == 0 {
		return nil, errors.New("libsandbox: argv is empty")
	}
	if opts.Timeout < 0 {
		return nil, errors.New("libsandbox: a negative timeout")
	}
	flags, err := opts.Policy.Flags()
	if err != nil {
		return nil, err
	}
	exe, err := FindLauncher(opts.Launcher)
	if err != nil {
		return nil, err
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	// A file, so nothing has to be drained meanwhile; unlinked before the
	// command starts, since the sandbox may write the temp directory and a
	// command that found the file by name could forge or spoil its outcome.
	f, err := os.CreateTemp("", "sbx-outcome-")
	if err != nil {
		return nil, err
	}
	defer f.Close()
	if err := os.Remove(f.Name()); err != nil {
		return nil, err
	}
	args := append(flags, "--outcome-fd", "3")
	if opts.Timeout > 0 {
		// At least 1 ms: never a 0 the launcher could read as no timeout.
		t := opts.Timeout
		if t < time.Millisecond {
			t = time.Millisecond
		}
		args = append(args, "--timeout", strconv.FormatFloat(t.Seconds(), 'f', 3, 64))
	}
	args = append(append(args, "--"), argv...)
	c := exec.Command(exe, args...)
	c.Dir, c.Env, c.ExtraFiles = opts.Dir, opts.Env, []*os.File{f}
	if opts.Stdin != nil {
		c.Stdin = bytes.NewReader(opts.Stdin)
	}
	var stdout, stderr bytes.Buffer
	c.Stdout, c.Stderr = &stdout, &stderr
	// A session and process group of its own: the terminal's Ctrl-C reaches
	// the host, which ends the run in order.
	c.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	// The launcher ends the run when the thread that started it exits: keep
	// this goroutine on one OS thread until the run is over, so the runtime
	// cannot retire that thread meanwhile.
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	if err := c.Start(); err != nil {
		return nil, &LauncherError{fmt.Sprintf("cannot start %s: %v", exe, err)}
	}
	done := make(chan error, 1)
	go func() { done <- c.Wait() }()
	var stop <-chan time.Time
	if opts.Timeout > 0 {
		t := time.NewTimer(opts.Timeout + backstop)
		defer t.Stop()
		stop = t.C
	}
	var cancelled error
	select {
	case <-done:
	case <-ctx.Done():
		cancelled = ctx.Err()
	case <-stop:
		cancelled = context.DeadlineExceeded
	}
	if cancelled != nil {
		// SIGTERM reaches the command; then the launcher is killed. Never a
		// group kill first: it would kill the supervisor before it ends what
		// the command started in other sessions.
		_ = c.Process.Signal(syscall.SIGTERM)
		select {
		case <-done:
		case <-time.After(grace):
			_ = c.Process.Kill()
			<-done
		}
	}
	groupGone(c.Process.Pid)
	if cancelled != nil {
		return nil, fmt.Errorf("libsandbox: the run was ended, its process tree is gone: %w", cancelled)
	}
	status := c.ProcessState.ExitCode()
	if ws, ok := c.ProcessState.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
		status = 128 + int(ws.Signal())
	}
	// The launcher's writes moved the offset this descriptor shares with its descriptor 3.
	if _, err := f.Seek(0, io.SeekStart); err != nil {
		return nil, err
	}
	text, err := io.ReadAll(f)
	if err != nil {
		return nil, err
	}
	o := &Outcome{Status: status, Stdout: stdout.Bytes(), Stderr: stderr.Bytes()}
	if len(bytes.TrimSpace(text)) == 0 {
		o.ExitCode = &status
		return o, nil
	}
	var d struct {
		ExitCode          *int     `json:"exit_code"`
		Signal            *int     `json:"signal"`
		SignalName        *string  `json:"signal_name"`
		TimedOut          bool     `json:"timed_out"`
		Sandbox           *string  `json:"sandbox"`
		Records           []Record `json:"records"`
		LeftoverProcesses int      `json:"leftover_processes"`
		Summary           *string  `json:"summary"`
		Warning           *string  `json:"warning"`
		Limit             *string  `json:"limit"`
		LimitCertain      bool     `json:"limit_certain"`
		SandboxFailure    *string  `json:"sandbox_failure"`
		SandboxFailed     *string  `json:"sandbox_failed"`
	}
	if err := json.Unmarshal(text, &d); err != nil {
		return nil, fmt.Errorf("libsandbox: the outcome is not JSON: %w", err)
	}
	if err := json.Unmarshal(text, &o.Raw); err != nil {
		return nil, err
	}
	o.Ran, o.ExitCode, o.Signal, o.SignalName, o.TimedOut = true, d.ExitCode, d.Signal, d.SignalName, d.TimedOut
	o.Sandbox, o.Records, o.LeftoverProcesses, o.Summary, o.Warning = d.Sandbox, d.Records, d.LeftoverProcesses, d.Summary, d.Warning
	o.Limit, o.LimitCertain, o.SandboxFailure, o.SandboxFailed = d.Limit, d.LimitCertain, d.SandboxFailure, d.SandboxFailed
	return o, nil
}

func jsonAction(launcher string, args ...string) (map[string]any, error) {
	exe, err := FindLauncher(launcher)
	if err != nil {
		return nil, err
	}
	var stderr bytes.Buffer
	c := exec.Command(exe, args...)
	c.Stderr = &stderr
	out, err := c.Output()
	if err != nil {
		return nil, &LauncherError{fmt.Sprintf("%s %s failed: %v: %s", args[0], args[1], err, bytes.TrimSpace(stderr.Bytes()))}
	}
	var v map[string]any
	return v, json.Unmarshal(out, &v)
}

// SelfTest is `--self-test --json`: what this machine enforces.
func SelfTest(launcher string) (map[string]any, error) {
	return jsonAction(launcher, "--self-test", "--json")
}

// Explain is `--explain --json`: what the policy would enforce; nothing runs.
func Explain(p Policy, launcher string) (map[string]any, error) {
	flags, err := p.Flags()
	if err != nil {
		return nil, err
	}
	return jsonAction(launcher, append(append([]string{"--explain", "--json"}, flags...), "--", "true")...)
}
