// Real runs under the launcher named by $SANDBOX_EXEC_LAUNCHER (else PATH).
// Each enforcement check runs the same command unconfined as its control.
package libsandbox

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"testing"
	"time"
)

const tree = "sleep 100 & echo $! >> pids; setsid sleep 100 & echo $! >> pids; echo $$ >> pids; sleep 100"

func py() string {
	if _, err := os.Stat("/usr/bin/python3"); err == nil {
		return "/usr/bin/python3"
	}
	return "python3"
}

// Outside /tmp: the sandbox may always write the system temp directory.
func dirs(t *testing.T) (string, string, Policy) {
	project, err := os.MkdirTemp("/var/tmp", "sbx-go-proj.")
	if err != nil {
		t.Fatal(err)
	}
	outside, err := os.MkdirTemp("/var/tmp", "sbx-go-out.")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(project); os.RemoveAll(outside) })
	return project, outside, Policy{Project: project, Workdir: project}
}

func gone(pid int) bool {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return true
	}
	s := string(b)
	return strings.Fields(s[strings.LastIndex(s, ")")+1:])[0] == "Z"
}

func pids(t *testing.T, project string) []int {
	b, _ := os.ReadFile(filepath.Join(project, "pids"))
	var r []int
	for _, f := range strings.Fields(string(b)) {
		n, _ := strconv.Atoi(f)
		r = append(r, n)
	}
	return r
}

func treeGone(t *testing.T, project string) {
	p := pids(t, project)
	if len(p) != 3 {
		t.Fatalf("pids: %v", p)
	}
	for _, x := range p {
		if !gone(x) {
			t.Errorf("process %d survived", x)
		}
	}
}

func TestOutsideWrite(t *testing.T) {
	project, outside, pol := dirs(t)
	target := filepath.Join(outside, "f")
	o, err := Run(context.Background(), []string{"sh", "-c", "echo x > " + target}, Options{Policy: pol, Timeout: time.Minute, Dir: project})
	if err != nil {
		t.Fatal(err)
	}
	if !o.Ran || o.ExitCode == nil || *o.ExitCode == 0 || !(strings.Contains(string(o.Stderr), "ermission denied") || strings.Contains(string(o.Stderr), "ead-only file system")) {
		t.Fatalf("not refused: %+v %s", o, o.Stderr)
	}
	if _, err := os.Stat(target); err == nil {
		t.Fatal("the file was written")
	}
	if o.Sandbox == nil || !strings.HasPrefix(*o.Sandbox, "on:") {
		t.Errorf("sandbox line: %v", o.Sandbox)
	}
	in, err := Run(context.Background(), []string{"sh", "-c", "echo x > inside"}, Options{Policy: pol, Dir: project})
	if err != nil || *in.ExitCode != 0 {
		t.Fatalf("inside: %v %+v", err, in)
	}
	if err := exec.Command("sh", "-c", "echo x > "+target).Run(); err != nil { // the control
		t.Fatal(err)
	}
	if _, err := os.Stat(target); err != nil {
		t.Fatal(err)
	}
}

func TestSocket(t *testing.T) {
	project, _, pol := dirs(t)
	code := "import socket; socket.socket(socket.AF_INET, socket.SOCK_STREAM)"
	o, err := Run(context.Background(), []string{py(), "-c", code}, Options{Policy: pol, Timeout: time.Minute, Dir: project})
	if err != nil {
		t.Fatal(err)
	}
	if o.ExitCode != nil || o.SignalName == nil || *o.SignalName != "SIGSYS" || o.Status != 128+31 {
		t.Fatalf("not SIGSYS: %+v", o)
	}
	c := o.Certain()
	if len(c) != 1 || c[0].Kind != "socket" || *c[0].FamilyName != "AF_INET" || *c[0].Action != "SIGSYS" {
		t.Fatalf("records: %+v", o.Records)
	}
	if err := exec.Command(py(), "-c", code).Run(); err != nil { // the control
		t.Fatal(err)
	}
	pol.NetEPERM = true
	o, err = Run(context.Background(), []string{py(), "-c", code}, Options{Policy: pol, Timeout: time.Minute, Dir: project})
	if err != nil {
		t.Fatal(err)
	}
	c = o.Certain()
	if o.ExitCode == nil || *o.ExitCode != 1 || len(c) != 1 || *c[0].Action != "EPERM" || !strings.Contains(string(o.Stderr), "PermissionError") {
		t.Fatalf("not EPERM: %+v %+v", o, c)
	}
}

func TestProtectedEnvAndIO(t *testing.T) {
	project, _, pol := dirs(t)
	if err := os.WriteFile(filepath.Join(project, ".env"), []byte("TOKEN=secret\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	p := pol
	p.ProtectSecrets = true
	o, err := Run(context.Background(), []string{"cat", ".env"}, Options{Policy: p, Timeout: time.Minute, Dir: project})
	if err != nil {
		t.Fatal(err)
	}
	if *o.ExitCode == 0 || strings.Contains(string(o.Stdout), "secret") {
		t.Fatalf("read: %+v %s", o, o.Stdout)
	}
	c := exec.Command("cat", ".env")
	c.Dir = project
	if out, err := c.Output(); err != nil || string(out) != "TOKEN=secret\n" { // the control
		t.Fatal(err, out)
	}
	o, err = Run(context.Background(), []string{"sh", "-c", `cat; echo "$SBX_X"; pwd`}, Options{Policy: pol, Dir: project,
		Env: []string{"PATH=/usr/bin:/bin", "SBX_X=y"}, Stdin: []byte("in\n")})
	real, _ := filepath.EvalSymlinks(project)
	if err != nil || string(o.Stdout) != "in\ny\n"+real+"\n" {
		t.Fatalf("%v %q", err, o.Stdout)
	}
}

func TestOutcomeFileHasNoName(t *testing.T) {
	project, _, pol := dirs(t)
	o, err := Run(context.Background(), []string{"ls", "-a", os.TempDir()}, Options{Policy: pol, Dir: project})
	if err != nil || *o.ExitCode != 0 || strings.Contains(string(o.Stdout), "sbx-outcome") {
		t.Fatalf("%v %s", err, o.Stdout)
	}
}

func TestTimeoutKillsTree(t *testing.T) {
	project, _, pol := dirs(t)
	o, err := Run(context.Background(), []string{"sh", "-c", tree}, Options{Policy: pol, Timeout: time.Second, Dir: project})
	if err != nil {
		t.Fatal(err)
	}
	if !o.TimedOut || o.Status != 124 || o.Limit == nil || *o.Limit != "timeout" {
		t.Fatalf("%+v", o)
	}
	treeGone(t, project)
}

func TestContextCancelKillsTree(t *testing.T) {
	project, _, pol := dirs(t)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go func() {
		for i := 0; i < 600 && len(pids(t, project)) < 3; i++ {
			time.Sleep(50 * time.Millisecond)
		}
		cancel()
	}()
	t0 := time.Now()
	_, err := Run(ctx, []string{"sh", "-c", tree}, Options{Policy: pol, Timeout: time.Minute, Dir: project})
	if time.Since(t0) > 30*time.Second {
		t.Error("ended by the timeout, not the cancellation")
	}
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("error: %v", err)
	}
	treeGone(t, project)
}

func fake(t *testing.T, dir, version string) (string, string) {
	marker := filepath.Join(dir, "spawned")
	p := filepath.Join(dir, "fake-"+version)
	script := "#!/bin/sh\n[ \"$1\" = --version ] && { echo \"sandbox-exec-launcher " + version + "\"; exit 0; }\ntouch " + marker + "\n"
	if err := os.WriteFile(p, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	return p, marker
}

func TestLauncherAndPolicyErrors(t *testing.T) {
	_, outside, _ := dirs(t)
	var le *LauncherError
	if _, err := Run(context.Background(), []string{"true"}, Options{Launcher: "/nonexistent/sandbox-exec-launcher"}); !errors.As(err, &le) {
		t.Fatalf("missing: %v", err)
	}
	t.Setenv("SANDBOX_EXEC_LAUNCHER", "")
	t.Setenv("PATH", outside)
	if _, err := FindLauncher(""); !errors.As(err, &le) || !strings.Contains(err.Error(), "not found") {
		t.Fatalf("not on PATH: %v", err)
	}
	old, marker := fake(t, outside, "0.0.9")
	if _, err := Run(context.Background(), []string{"true"}, Options{Launcher: old}); !errors.As(err, &le) || !strings.Contains(err.Error(), "version 0.0.9; this package needs 0.1.0") {
		t.Fatalf("old: %v", err)
	}
	ok, _ := fake(t, outside, "9.9.9")
	var pe *PolicyError
	for _, bad := range []Policy{{Mode: "read-only", Class: "build"}, {Class: "media"}, {Mode: "no-net"}, {Class: "bogus"}, {AddDirs: []string{""}}, {AddReads: []string{"/usr"}}, {Project: "rel"}, {AddDirs: []string{"--net-eperm"}}} {
		if _, err := Run(context.Background(), []string{"true"}, Options{Policy: bad, Launcher: ok}); !errors.As(err, &pe) {
			t.Errorf("%+v: %v", bad, err)
		}
	}
	if _, err := Run(context.Background(), nil, Options{Launcher: ok}); err == nil {
		t.Error("empty argv accepted")
	}
	if _, err := os.Stat(marker); err == nil {
		t.Error("something was spawned")
	}
}

func TestExplainSelfTestFlags(t *testing.T) {
	project, _, _ := dirs(t)
	e, err := Explain(Policy{Project: project, Workdir: project, NetEPERM: true, Class: "build"}, "")
	if err != nil {
		t.Fatal(err)
	}
	real, _ := filepath.EvalSymlinks(project)
	if e["project_root"] != real || e["class"] != "build" || e["deny_action"] != "eperm" {
		t.Errorf("explain: %v", e)
	}
	s, err := SelfTest("")
	if err != nil || s["platform"] != "linux" || s["supervised"].(map[string]any)["available"] != true {
		t.Errorf("self-test: %v %v", err, s)
	}
	f, err := Policy{Mode: "no-network", Project: "/p", AddDirs: []string{"/a"}, Class: "build", Protect: []string{"*.pem"}, ProtectSecrets: true, NetEPERM: true}.Flags()
	want := []string{"--no-network", "--class", "build", "--project", "/p", "--add-dir", "/a", "--protect", "*.pem", "--protect-secrets", "--net-eperm"}
	if err != nil || !reflect.DeepEqual(f, want) {
		t.Errorf("flags: %v %v", err, f)
	}
}
