package kubetest

import (
	"bufio"
	"context"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/murmur-go/mur/internal/testmur"
	"github.com/murmur-go/mur/launcher/kube"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
	clientcmdapi "k8s.io/client-go/tools/clientcmd/api"
)

var (
	murOnce sync.Once
	murBin  string
	murErr  error
)

// murBinary builds cmd/mur in mur's own module (its build cache, not this
// module's build list) once per test binary.
func murBinary(t *testing.T) string {
	t.Helper()
	murOnce.Do(func() {
		dir, err := os.MkdirTemp("", "mur-kubetest-bin")
		if err != nil {
			murErr = err
			return
		}
		murBin = filepath.Join(dir, "mur")
		cmd := exec.Command("go", "build", "-o", murBin, "./cmd/mur")
		cmd.Dir = filepath.Join("..", "..", "..")
		if out, err := testmur.Combined(cmd); err != nil {
			murErr = &buildError{out: string(out), err: err}
		}
	})
	if murErr != nil {
		t.Fatal(murErr)
	}
	return murBin
}

type buildError struct {
	out string
	err error
}

func (e *buildError) Error() string { return "go build ./cmd/mur: " + e.err.Error() + "\n" + e.out }

// kubeconfig writes cfg as a kubeconfig file, as a user's would name the
// cluster.
func kubeconfig(t *testing.T, cfg *rest.Config) string {
	t.Helper()
	kc := clientcmdapi.NewConfig()
	kc.Clusters["test"] = &clientcmdapi.Cluster{Server: cfg.Host, CertificateAuthorityData: cfg.CAData,
		CertificateAuthority: cfg.CAFile, InsecureSkipTLSVerify: cfg.Insecure, TLSServerName: cfg.ServerName}
	kc.AuthInfos["test"] = &clientcmdapi.AuthInfo{Token: cfg.BearerToken, ClientCertificateData: cfg.CertData,
		ClientCertificate: cfg.CertFile, ClientKeyData: cfg.KeyData, ClientKey: cfg.KeyFile}
	kc.Contexts["test"] = &clientcmdapi.Context{Cluster: "test", AuthInfo: "test"}
	kc.CurrentContext = "test"
	path := filepath.Join(t.TempDir(), "kubeconfig")
	if err := clientcmd.WriteToFile(*kc, path); err != nil {
		t.Fatal(err)
	}
	return path
}

// launcherRun is one `mur run --roster --on kubernetes` process.
type launcherRun struct {
	cmd    *exec.Cmd
	lines  chan string // stdout lines
	stderr *strings.Builder
	mu     sync.Mutex
	done   chan struct{}
}

func startLauncher(t *testing.T, c *cluster, project, home string, extra ...string) *launcherRun {
	t.Helper()
	args := append([]string{"run", "--roster", project, "--on", "kubernetes", "--image", "mur:test",
		"--kubeconfig", kubeconfig(t, c.server.ClientConfig), "--namespace", "studio", "--json"}, extra...)
	cmd := exec.Command(murBinary(t), args...)
	cmd.Env = append(os.Environ(), "MURMUR_HOME="+home)
	cmd.Dir = project
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	errR, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	r := &launcherRun{cmd: cmd, lines: make(chan string, 16), stderr: &strings.Builder{}, done: make(chan struct{})}
	if err := testmur.Start(cmd); err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	wg.Go(func() {
		defer close(r.lines)
		sc := bufio.NewScanner(out)
		for sc.Scan() {
			r.lines <- sc.Text()
		}
	})
	wg.Go(func() {
		b, _ := io.ReadAll(errR)
		r.mu.Lock()
		r.stderr.Write(b)
		r.mu.Unlock()
	})
	go func() { wg.Wait(); _ = cmd.Wait(); close(r.done) }()
	t.Cleanup(func() {
		_ = cmd.Process.Kill()
		<-r.done
	})
	return r
}

func (r *launcherRun) stderrText() string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.stderr.String()
}

// playKubelet stands in for a node: it marks every pod of the namespace
// Running and Ready until ctx ends. No container runs.
func playKubelet(ctx context.Context, c *cluster, ns string) {
	for ctx.Err() == nil {
		pods, err := c.client.CoreV1().Pods(ns).List(ctx, metav1.ListOptions{})
		if err == nil {
			for _, p := range pods.Items {
				if ready, _ := kube.PodReady(&p); ready || p.DeletionTimestamp != nil {
					continue
				}
				p.Status.Phase = corev1.PodRunning
				p.Status.Conditions = []corev1.PodCondition{{Type: corev1.PodReady, Status: corev1.ConditionTrue}}
				_, _ = c.client.CoreV1().Pods(ns).UpdateStatus(ctx, &p, metav1.UpdateOptions{})
			}
		}
		select {
		case <-ctx.Done():
		case <-time.After(200 * time.Millisecond):
		}
	}
}

// The built mur launches examples/studio on the real API server: once
// every pod reports Ready it prints the formation line, follows the entry
// pod and ends with its container's exit code, and its teardown leaves no
// object of the formation (the garbage collector removes what the
// formation object owned).
func TestLaunchOnAPIServer(t *testing.T) {
	c := startCluster(t)
	_, project, home := studioProject(t)
	createNamespace(t, c, "studio")
	ctx, cancel := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	t.Cleanup(func() { cancel(); wg.Wait() })
	wg.Go(func() { playKubelet(ctx, c, "studio") })

	r := startLauncher(t, c, project, home, "--task", "write hello")
	var line string
	select {
	case line = <-r.lines:
	case <-r.done:
		t.Fatalf("the launcher ended before its formation line; stderr:\n%s", r.stderrText())
	case <-time.After(120 * time.Second):
		t.Fatalf("no formation line within 120s; stderr:\n%s", r.stderrText())
	}
	if !strings.HasPrefix(line, `{"entry":"planner","formation_id":"frm_`) || !strings.Contains(line, `"url":"http://coder-`) {
		t.Fatalf("formation line = %s", line)
	}
	id := line[strings.Index(line, `"formation_id":"`)+len(`"formation_id":"`):]
	id = id[:strings.IndexByte(id, '"')]
	s := kube.Spec{FormationID: id, Namespace: "studio"}
	n := kube.NamesOf(id)
	lease, err := c.client.CoordinationV1().Leases("studio").Get(ctx, n.Formation(), metav1.GetOptions{})
	if err != nil || lease.Spec.RenewTime == nil {
		t.Fatalf("the launcher holds no renewed Lease: %+v, %v", lease, err)
	}

	// The entry's container ends with 3: so does the launcher.
	entry, err := c.client.CoreV1().Pods("studio").Get(ctx, n.Member("planner"), metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	entry.Status.ContainerStatuses = []corev1.ContainerStatus{{Name: "member", State: corev1.ContainerState{
		Terminated: &corev1.ContainerStateTerminated{ExitCode: 3}}}}
	if _, err := c.client.CoreV1().Pods("studio").UpdateStatus(ctx, entry, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	select {
	case <-r.done:
	case <-time.After(60 * time.Second):
		t.Fatalf("the launcher did not end within 60s of its entry; stderr:\n%s", r.stderrText())
	}
	if e := r.stderrText(); e != "" {
		t.Errorf("the launcher wrote to stderr under --json:\n%s", e)
	}
	if code := r.cmd.ProcessState.ExitCode(); code != 3 {
		t.Fatalf("exit code %d, want the entry's 3; stderr:\n%s", code, r.stderrText())
	}
	if left := waitGone(t, c, s, 90*time.Second); len(left) > 0 {
		t.Fatalf("90s after the launcher ended, still there: %v", left)
	}
}

// kill -9 of the launcher: nothing deletes the formation object, but its
// Lease is no longer renewed, so it reads as expired — what ends every
// member pod's lifeline — within its duration plus the member's read
// interval.
func TestLauncherKilledLeaseLapses(t *testing.T) {
	c := startCluster(t)
	_, project, home := studioProject(t)
	createNamespace(t, c, "studio")
	ctx := context.Background()
	r := startLauncher(t, c, project, home) // no kubelet: it waits for readiness
	var lease string
	deadline := time.Now().Add(120 * time.Second)
	for lease == "" {
		ls, err := c.client.CoordinationV1().Leases("studio").List(ctx, metav1.ListOptions{LabelSelector: kube.LabelFormation})
		if err == nil && len(ls.Items) == 1 && ls.Items[0].Spec.RenewTime != nil {
			lease = ls.Items[0].Name
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("no renewed Lease within 120s; stderr:\n%s", r.stderrText())
		}
		time.Sleep(200 * time.Millisecond)
	}
	kc, err := kube.NewClient(c.server.ClientConfig)
	if err != nil {
		t.Fatal(err)
	}
	if why, err := kc.LeaseEnded(ctx, "studio", lease); err != nil || why != "" {
		t.Fatalf("while the launcher runs: ended %q, err %v", why, err)
	}
	if err := r.cmd.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	<-r.done
	killed := time.Now()
	bound := kube.DefaultLeaseDuration + 5*time.Second
	for {
		why, err := kc.LeaseEnded(ctx, "studio", lease)
		if err == nil && strings.Contains(why, "expired") {
			break
		}
		if time.Since(killed) > bound {
			t.Fatalf("%s after kill -9 the Lease still holds (%q, %v)", bound, why, err)
		}
		time.Sleep(500 * time.Millisecond)
	}
	if _, err := c.client.CoreV1().ConfigMaps("studio").Get(ctx, lease, metav1.GetOptions{}); err != nil {
		t.Fatalf("the formation object should outlive a killed launcher until deleted: %v", err)
	}
}
